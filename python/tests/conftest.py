"""The tests import the installed package. `python -m pytest` run in `python/` puts that folder
first on `sys.path`, where the source folder `submit_result/` (without the compiled extension,
which only the installed package holds) would hide the installed one; `pytest` does not. The
folder is taken off the path here, before any test imports the package, so both commands test
the same thing."""

import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1]

sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != SOURCE]
