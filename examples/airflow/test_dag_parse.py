"""Checks on examples/airflow/dpone_dag.py that need no Airflow install.

Run: python3 -m pytest examples/airflow/test_dag_parse.py   (or python3 -m unittest from this folder)

* the DAG file imports only the standard library and Airflow, no network or database client;
* it never mentions try_number and reads no Variable, Connection or file at parse time;
* its exit-code table agrees with src/contracts/errors.ts;
* its workload template renders to a workload `dpone identity` accepts; every try, and a
  scheduled, manual or backfill run of the same data interval derive the same operation_id, while
  another interval derives a different one.

Real Airflow parsing the DAG (with audit hooks) and building the pod is checked by
harness/env/airflow/*.live.test.ts with the pinned Airflow environment.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import tempfile
import unittest
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DAG_FILE = HERE / "dpone_dag.py"
ALLOWED_IMPORT_ROOTS = {"__future__", "datetime", "airflow"}
PARSE_TIME_ACCESS = ("Variable", "get_connection", "Connection", "open(", "os.environ", "getenv")


def dag_module() -> ast.Module:
    return ast.parse(DAG_FILE.read_text(encoding="utf-8"))


def dag_constants() -> dict:
    """Module-level constants of the DAG file, evaluated without importing Airflow."""
    values: dict = {}
    for node in dag_module().body:
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            try:
                value = eval(compile(ast.Expression(node.value), str(DAG_FILE), "eval"), {}, dict(values))
            except NameError:
                continue
            for target in node.targets:
                values[target.id] = value
    return values


class FakeDate:
    def __init__(self, value: datetime):
        self.value = value

    def in_timezone(self, _name: str) -> "FakeDate":
        return FakeDate(self.value.astimezone(timezone.utc))

    def strftime(self, fmt: str) -> str:
        return self.value.strftime(fmt)


SCHEDULED = "scheduled__2026-07-19T00:00:00+00:00"
MANUAL = "manual__2026-11-30T20:09:57.074466+00:00"
BACKFILL = "backfill__2026-07-19T00:00:00+00:00"


def render(run_id: str, try_number: int, day: int = 18, logical_day: int | None = None) -> str:
    """Renders the workload as Airflow would for a run of the interval [July `day`, next day)."""
    import jinja2

    template = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(dag_constants()["WORKLOAD_TEMPLATE"])
    start = datetime(2026, 7, day, tzinfo=timezone.utc)
    logical = start.replace(day=logical_day or day)
    return template.render(
        dag={"dag_id": "orders_daily"},
        dag_run={"run_id": run_id},
        ti={"try_number": try_number},
        data_interval_start=FakeDate(start),
        data_interval_end=FakeDate(start.replace(day=day + 1)),
        logical_date=FakeDate(logical),
        ds=logical.strftime("%Y-%m-%d"),
    )


class DagParseTest(unittest.TestCase):
    def test_imports_only_stdlib_and_airflow(self):
        for node in ast.walk(dag_module()):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                self.assertIn(name.split(".")[0], ALLOWED_IMPORT_ROOTS, f"DAG imports {name}")

    def test_never_uses_try_number_or_parse_time_access(self):
        text = DAG_FILE.read_text(encoding="utf-8")
        self.assertNotIn("try_number", text)
        for needle in PARSE_TIME_ACCESS:
            self.assertNotIn(needle, text, f"DAG file mentions {needle}")

    def test_exit_codes_agree_with_the_runtime(self):
        source = (ROOT / "src/contracts/errors.ts").read_text(encoding="utf-8")
        table = source[source.index("export const EXIT_CODES") :]
        table = table[: table.index("};")]
        runtime = {code: int(number) for code, number in re.findall(r"(DPONE_[A-Z_]+): (\d+)", table)}
        constants = dag_constants()
        for number, code in {**constants["EXIT_RETRY_SAFE"], **constants["EXIT_NO_RETRY"]}.items():
            self.assertEqual(runtime[code], number, code)
        self.assertEqual(runtime["DPONE_TARGET_COMMIT_UNKNOWN"], constants["EXIT_COMMIT_UNKNOWN"])
        # An unknown outcome must stop the task (AirflowFailException), never be retried.
        self.assertIn(constants["EXIT_COMMIT_UNKNOWN"], constants["EXIT_NO_RETRY"])
        self.assertEqual(runtime["DPONE_TARGET_COMMITTED_INCOMPLETE"], constants["EXIT_COMMITTED_INCOMPLETE"])
        self.assertEqual(runtime["DPONE_INVALID_INPUT"], constants["EXIT_BAD_INPUT"])
        retry_safe = source[source.index("export const RETRY_SAFE_CODES") :]
        retry_safe = retry_safe[: retry_safe.index("]);")]
        code_of = dict(re.findall(r"^\s+([A-Z_]+): '(DPONE_[A-Z_]+)',$", source, re.M))
        expected = {code_of[key] for key in re.findall(r"ERROR_CODES\.([A-Z_]+)", retry_safe)}
        self.assertEqual(set(constants["EXIT_RETRY_SAFE"].values()), expected)

    def test_rendered_workload_is_stable_across_tries_and_run_kinds(self):
        first = render(SCHEDULED, 1)
        self.assertEqual(first, render(SCHEDULED, 3))
        # A manual run of the same interval has the interval's end as its logical date.
        self.assertEqual(first, render(MANUAL, 1, logical_day=19))
        self.assertEqual(first, render(BACKFILL, 2))
        workload = json.loads(first)
        self.assertEqual(
            workload["identity"]["dag_run_logical_identity"], "data_interval:2026-07-18T00:00:00Z/2026-07-19T00:00:00Z"
        )
        self.assertEqual(workload["data"]["partition"]["value"], "2026-07-18")
        self.assertNotEqual(first, render(SCHEDULED, 1, day=19))

    @unittest.skipUnless(shutil.which("node"), "node is not on PATH")
    def test_dpone_identity_accepts_the_rendered_workload(self):
        ids = []
        for rendered in (render(SCHEDULED, 1), render(MANUAL, 2, logical_day=19), render(BACKFILL, 1, day=19)):
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "workload.yaml"
                path.write_text(rendered, encoding="utf-8")
                done = subprocess.run(
                    ["node", str(ROOT / "bin/dpone.js"), "identity", "--workload", str(path), "--json"],
                    capture_output=True,
                    text=True,
                    cwd=ROOT,
                )
                self.assertEqual(done.returncode, 0, done.stderr)
                ids.append(json.loads(done.stdout)["operation_id"])
        self.assertEqual(ids[0], ids[1])
        self.assertNotEqual(ids[0], ids[2])


if __name__ == "__main__":
    unittest.main()
