"""`handle_batch` where the README's snippets run it: Spark (`mapInArrow` on `local[2]`), Ray
Data (`map_batches` on a local cluster) and DuckDB (an Arrow UDF over a Parquet file).

Each test runs its README snippet as written, in a folder of its own, and checks what it
prints; then it runs the snippet's function over every call of the corpus, each
(options, provider) group with its own tool, the calls repeated to more than 100,000 rows, and
compares each row with what `handle` gives the row's call read as a dict. The tools reach the
engines' workers pickled.
"""

import contextlib
import io
import json
import math
import os
import re
import shutil
from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from test_batch import corpus_batches, decoded, row_of  # noqa: E402
from test_corpus import build_tool  # noqa: E402

README = Path(__file__).resolve().parents[1] / "README.md"

ROWS = 100_000
"""The fewest rows each engine handles."""

PRINTED = "True {\"answer\":\"42\"} ['stringified']\n"
"""What each snippet prints for its one call."""


def snippet(heading):
    """The Python block of the README's section `### heading`."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index(f"\n### {heading}\n"):]
    return re.findall(r"```python\n(.*?)```", section, re.S)[0]


def run_snippet(heading, folder):
    """Runs the README's snippet under `heading` in `folder`: what it printed, and the names it
    defined. Its functions belong to no importable module, so the engines pickle them by value,
    as they pickle a script's."""
    names = {"__name__": f"readme_{heading.lower().replace(' ', '_')}"}
    printed = io.StringIO()
    here = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(snippet(heading), f"{README} ({heading})", "exec"), names)
    finally:
        os.chdir(here)
    return printed.getvalue(), names


class Corpus:
    """The calls of the corpus as rows `(n, group, call)`, repeated to at least `ROWS` rows,
    with each group's tool and provider, and the outcome `handle` gives each distinct call:
    every call, or (`default=True`) the calls of the tool with every default option, in each
    provider's shape."""

    def __init__(self, default=False):
        self.groups = []
        distinct = []
        for param in corpus_batches():
            options, provider, rows = param.values
            if default and options:
                continue
            group = len(self.groups)
            self.groups.append((build_tool(options), provider))
            distinct += [(group, json.dumps(call)) for _, call in rows]
        # Each group's rows together, so a query of one group reads its own row groups.
        copies = math.ceil(ROWS / len(distinct))
        self.rows = sorted(distinct * copies, key=lambda row: row[0])
        self.expected = {}
        for group, text in distinct:
            tool, provider = self.groups[group]
            self.expected[group, text] = row_of(tool.handle(provider, json.loads(text)))

    def table(self):
        return pa.table({"n": pa.array(range(len(self.rows)), pa.int64()),
                         "group": pa.array([group for group, _ in self.rows], pa.int32()),
                         "call": pa.array([text for _, text in self.rows], pa.string())})

    def write(self, path):
        pq.write_table(self.table(), path, row_group_size=1024)

    def check(self, answered):
        """`answered`, a table of the columns `n` and `outcome`, holds every row once, each
        with the outcome `handle` gives its call."""
        answered = answered.sort_by("n")
        numbers = answered.column("n").to_pylist()
        assert numbers == list(range(len(self.rows)))
        mismatches = []
        for n, outcome in zip(numbers, answered.column("outcome").to_pylist()):
            group, text = self.rows[n]
            if decoded_row(outcome) != self.expected[group, text]:
                mismatches.append((n, group, text, outcome))
        assert not mismatches, f"{len(mismatches)} rows differ, first: {mismatches[:3]}"
        return len(numbers)


def decoded_row(row):
    """A row with its response read back from JSON text and its recoveries as a list."""
    row = decoded(row)
    if row is not None and row["recoveries"] is not None:
        row = dict(row, recoveries=list(row["recoveries"]))
    return row


@pytest.fixture(scope="module")
def corpus():
    return Corpus()


@pytest.fixture(scope="module")
def default_corpus():
    """The calls of the tool with every default option (a thousand, in four shapes): a Spark
    or Ray run costs a task for each tool and provider, and the tool's options travel as every
    tool's do (test_tool.py pickles each)."""
    return Corpus(default=True)


def test_spark_map_in_arrow_gives_handles_verdict_row_for_row(default_corpus, tmp_path):
    corpus = default_corpus
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("Spark needs a Java runtime (CI installs one)")
    printed, names = run_snippet("Spark", tmp_path)
    spark = names["spark"]
    try:
        assert printed == PRINTED
        with_outcomes = names["with_outcomes"]
        corpus.write(tmp_path / "calls.parquet")
        calls = spark.read.parquet(str(tmp_path / "calls.parquet"))
        parts = [with_outcomes(calls.where(calls.group == group), tool, provider)
                 for group, (tool, provider) in enumerate(corpus.groups)]
        every = parts[0]
        for part in parts[1:]:
            every = every.unionByName(part)
        assert corpus.check(every.select("n", "outcome").toArrow()) >= ROWS
    finally:
        spark.stop()


def test_ray_map_batches_gives_handles_verdict_row_for_row(default_corpus, tmp_path):
    corpus = default_corpus
    ray = pytest.importorskip("ray")
    # Ray puts the driver's working folder on its workers' `sys.path`: started from the
    # package's folder, its source folder would hide the installed package there.
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    finally:
        os.chdir(here)
    try:
        printed, names = run_snippet("Ray Data", tmp_path)
        assert printed == PRINTED
        with_outcomes = names["with_outcomes"]
        table = corpus.table()
        answered = []
        for group, (tool, provider) in enumerate(corpus.groups):
            rows = table.filter(pa.compute.equal(table.column("group"), group))
            judged = with_outcomes(ray.data.from_arrow(rows), tool, provider)
            answered += ray.get(judged.select_columns(["n", "outcome"]).to_arrow_refs())
        assert corpus.check(pa.concat_tables(answered)) >= ROWS
    finally:
        ray.shutdown()


def test_duckdb_arrow_udf_over_parquet_gives_handles_verdict(corpus, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    printed, names = run_snippet("DuckDB", tmp_path)
    assert printed == PRINTED
    add_outcome = names["add_outcome"]
    path = tmp_path / "corpus.parquet"
    corpus.write(path)
    con = duckdb.connect()
    answered = []
    for group, (tool, provider) in enumerate(corpus.groups):
        add_outcome(con, f"outcome_{group}", tool, provider)
        query = (f"SELECT n, outcome_{group}(call) AS outcome FROM read_parquet('{path}') "
                 f"WHERE \"group\" = {group}")
        answered.append(con.sql(query).arrow().read_all())
    assert corpus.check(pa.concat_tables(answered)) >= ROWS
