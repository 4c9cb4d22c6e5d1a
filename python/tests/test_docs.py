"""The examples in the package's docstring and in its README run as written."""

import contextlib
import doctest
import io
import re
from pathlib import Path

import submit_result

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_module_docstring_example():
    failures, tried = doctest.testmod(submit_result)
    assert tried > 0 and failures == 0


def test_the_readme_example_prints_what_it_says():
    code = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)[0]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(README), "exec"), {})
    assert printed.getvalue().startswith(
        "Accepted(response={'answer': '42'}, recovery='stringified'")


def test_the_readme_arguments_example_prints_what_it_says():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    [code] = [block for block in blocks if "tool.handle_arguments(" in block]
    names: dict = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(blocks[0], str(README), "exec"), names)  # builds `tool`
        printed.truncate(0)
        printed.seek(0)
        exec(compile(code, str(README), "exec"), names)
    assert printed.getvalue() == "truncated_call\n"


def readme_block(heading):
    """The first Python block of the README after `heading`."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index(f"\n## {heading}\n"):]
    return re.findall(r"```python\n(.*?)```", section, re.S)[0]


def test_the_readme_batch_example_prints_one_accepted_row():
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(readme_block("Batches as Arrow"), str(README), "exec"), {})
    assert printed.getvalue() == (
        "[{'accepted': True, 'response': '{\"answer\":\"42\"}', 'reasoning': 'r', "
        "'recoveries': [], 'error_class': None, 'cause': None, 'message': None}]\n")
