"""The harness's live DAGs: one per airflow-live cell, run by a real Airflow scheduler.

Each cell DAG is the production DAG (examples/airflow/dpone_dag.py, copied beside this file as
`dpone_dag`) with the pod swapped for a local process:

* the same workload template, rendered by Airflow from the DAG run (the identity of the cell's
  workload is replaced by the rendered one; route, source, target and data stay the cell's);
* the same command (`POD_SCRIPT`), with the pod's two private paths (/tmp/workload.yaml and
  /airflow/xcom/return.json) moved into a fresh folder per try, the local stand-in for a new pod;
* the same exit-code decision (`fail_or_retry`) and the same refusal of runs without a data
  interval (`require_data_interval`);
* XCom read the way KubernetesPodOperator's sidecar reads it: a missing or empty file is an
  empty XCom; a file that cannot be read or parsed fails the try (and Airflow retries);
* the production timetable and retries (3), with a retry delay of seconds instead of minutes.

What is harness-only: a fault plan file per try (`plans/<n>.json`, written by the harness before
the run) reaches `dpone run` as DPONE_FAULT_PLAN, with a trace and a notification file in the
try's folder, so the harness can SIGKILL or park the process at a protocol point; and the cell's
worker environment (passwords of throw-away servers) comes from a file outside the cell folder.
Nothing here runs at parse time but building the DAG object.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import dpone_dag as production
from airflow.sdk import DAG, BaseOperator
from airflow.sdk.exceptions import AirflowException

POD_WORKLOAD = "/tmp/workload.yaml"
POD_XCOM = "/airflow/xcom/return.json"
# Passed from the task's environment to dpone; AIRFLOW_HOME lets the harness find strays.
POD_ENV = ("PATH", "HOME", "LANG", "NODE_COMPILE_CACHE", "AIRFLOW_HOME")
CELL_DAY = datetime(2026, 1, 1, tzinfo=timezone.utc)
# The last logical date the cell's DAG runs for: the scheduler creates exactly one run, for
# [CELL_DAY, next day); manual runs with a logical date within that day still get their task.
CELL_END = CELL_DAY + timedelta(days=1, seconds=-1)


def claim_try_folder(cell_dir: Path) -> tuple[int, Path]:
    """The next free `tries/<n>` folder of the cell (n = 1, 2, ... across all its runs)."""
    tries = cell_dir / "tries"
    tries.mkdir(parents=True, exist_ok=True)
    number = 1
    while True:
        folder = tries / str(number)
        try:
            folder.mkdir()
            return number, folder
        except FileExistsError:
            number += 1


def read_xcom(path: Path):
    """KubernetesPodOperator's sidecar: no (or an empty) file is an empty XCom; a bad one fails."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise AirflowException(f"Failed to extract xcom: {type(error).__name__}") from error
    if text.strip() == "":
        return None
    try:
        return json.loads(text)
    except ValueError as error:
        raise AirflowException("Failed to extract xcom: not JSON") from error


class DponeLocalOperator(BaseOperator):
    """Runs the production pod's command for this cell in a local process group."""

    template_fields = ("workload_template",)

    def __init__(self, *, cell_dir: str, env_file: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.workload_template = production.WORKLOAD_TEMPLATE
        self.cell_dir = cell_dir
        self.env_file = env_file
        self._process: subprocess.Popen | None = None

    def render_template_fields(self, context, jinja_env=None) -> None:
        production.require_data_interval(context)
        super().render_template_fields(context, jinja_env)

    def execute(self, context):
        cell = Path(self.cell_dir)
        number, folder = claim_try_folder(cell)
        rendered = json.loads(self.workload_template)
        spec = json.loads((cell / "cell.json").read_text(encoding="utf-8"))
        workload = {**spec["workload"], "identity": rendered["identity"], "journal": spec["journal"]}
        script = production.POD_SCRIPT.replace(POD_WORKLOAD, str(folder / "workload.yaml"))
        script = script.replace(POD_XCOM, str(folder / "xcom" / "return.json"))
        if POD_WORKLOAD in script or POD_XCOM in script or str(folder) not in script:
            raise AirflowException("the production POD_SCRIPT no longer names the pod paths this DAG moves")
        (folder / "xcom").mkdir(exist_ok=True)
        meta = {
            "try_folder": number,
            "run_id": context["dag_run"].run_id,
            "run_type": getattr(context["dag_run"].run_type, "value", str(context["dag_run"].run_type)),
            "try_number": context["ti"].try_number,
        }
        (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")

        # What a pod would have: no Airflow configuration or metadata password, only the
        # basics, the cell's worker environment (its servers' passwords) and dpone's inputs.
        env = {name: os.environ[name] for name in POD_ENV if name in os.environ}
        env.update(json.loads(Path(self.env_file).read_text(encoding="utf-8")))
        env["DPONE_WORKLOAD"] = json.dumps(workload)
        notify = os.open(folder / "notify", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        plan_file = cell / "plans" / f"{number}.json"
        plan = json.loads(plan_file.read_text(encoding="utf-8")) if plan_file.exists() else {}
        env["DPONE_FAULT_PLAN"] = json.dumps({**plan, "trace": str(folder / "trace.txt"), "notifyFd": notify})
        started = time.monotonic()
        try:
            self._process = subprocess.Popen(
                ["sh", "-c", script],
                cwd=folder,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                pass_fds=(notify,),
            )
        finally:
            os.close(notify)
        (folder / "pid").write_text(str(self._process.pid), encoding="utf-8")
        for line in iter(self._process.stdout.readline, b""):
            self.log.info("%s", line.decode("utf-8", errors="backslashreplace").rstrip())
        code = self._process.wait()
        result = {"exit_code": code, "pid": self._process.pid, "duration_ms": round((time.monotonic() - started) * 1000)}
        (folder / "result.json").write_text(json.dumps(result), encoding="utf-8")
        if code != 0:
            # A negative code is a signal (the pod lost): the exit code is unknown, so Airflow retries.
            production.fail_or_retry(code if code > 0 else None, AirflowException(f"dpone exited {code}"))
        return read_xcom(folder / "xcom" / "return.json")

    def on_kill(self) -> None:
        if self._process is not None and self._process.poll() is None:
            os.killpg(self._process.pid, signal.SIGTERM)


def cell_dag(dag_id: str, cell_dir: str, env_file: str, retry_delay_seconds: int) -> DAG:
    """The cell's DAG: one scheduled run, for the interval [2026-01-01, 2026-01-02)."""
    with DAG(
        dag_id=dag_id,
        schedule=production.dag.timetable,
        start_date=CELL_DAY,
        end_date=CELL_END,
        catchup=True,
        max_active_runs=1,
        is_paused_upon_creation=False,
        default_args={**production.dag.default_args, "retry_delay": timedelta(seconds=retry_delay_seconds)},
        tags=["dpone-harness"],
    ) as dag:
        DponeLocalOperator(
            task_id=next(iter(production.dag.task_dict)),
            cell_dir=cell_dir,
            env_file=env_file,
        )
    return dag
