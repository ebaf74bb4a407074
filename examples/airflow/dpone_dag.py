"""Example DAG: one dpone workload per DAG run, in a Kubernetes pod, recovery-aware on every retry.

What this file shows (see examples/airflow/README.md):

* The stable operation inputs (release, deployment, DAG, DAG-run logical identity, workload,
  mapped partition, interval, target) come from the DAG run's data interval, never from the run
  id, the try number, the pod name, the current time or a random value. Every retry of one DAG
  run, a cleared task, and a scheduled, manual or backfill run of the same interval therefore
  derive the same operation_id, and `dpone run` resumes that operation from its durable journal
  instead of writing again. A run without a data interval (a manual run with no logical date)
  names no data: it fails without a retry.
* Parsing this file does no journal, target, secret or network access: the workload is a Jinja
  template that Airflow renders when the task runs, and passwords come from a Kubernetes Secret
  the pod mounts as an environment variable (the scheduler never reads it).
* `dpone run` writes its result to the KubernetesPodOperator XCom file (do_xcom_push=True). XCom
  is a convenience: correctness never depends on it.
* Exit codes (src/contracts/errors.ts EXIT_CODES) decide what Airflow does next: retry-safe codes
  and COMMITTED_INCOMPLETE are retried; COMMIT_UNKNOWN and bad input fail the task without a retry
  (AirflowFailException), because only an operator with `dpone recovery target-commit` can move
  them on.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator
from airflow.providers.cncf.kubernetes.secret import Secret
from airflow.sdk import DAG, CronDataIntervalTimetable
from airflow.sdk.exceptions import AirflowException, AirflowFailException

# Deployment constants, fixed when the DAG is released (not read from anywhere at parse time).
RELEASE_ID = "2026.07.1"
DEPLOYMENT_ID = "prod-eu-1"
WORKLOAD_ID = "orders_to_events"
TARGET_IDENTITY = "postgres:analytics.events"
IMAGE = "registry.example.com/dpone:0.1.0"

# dpone exit codes (src/contracts/errors.ts EXIT_CODES; test_dag_parse.py checks they agree).
EXIT_SUCCESS = 0
EXIT_BAD_INPUT = 2  # DPONE_INVALID_INPUT: fix the workload or the flags; a retry cannot help
EXIT_RETRY_SAFE = {
    10: "DPONE_TARGET_COMMIT_JOURNAL_UNAVAILABLE",
    11: "DPONE_TARGET_COMMIT_FENCE_UNAVAILABLE",
    12: "DPONE_TARGET_COMMIT_PRE_COMMIT_FAILED",
    13: "DPONE_TARGET_COMMIT_CAS_CONFLICT",
    14: "DPONE_TARGET_COMMIT_FENCED",
    16: "DPONE_TARGET_PARTITION_BUSY",  # another operation's swap into the partition: retry later
    18: "DPONE_STORAGE_FULL",  # the journal's or the SQLite target's disk is full: nothing half-written; retry once freed
}
EXIT_COMMIT_UNKNOWN = 20  # DPONE_TARGET_COMMIT_UNKNOWN: operator reconciliation required
EXIT_COMMITTED_INCOMPLETE = 21  # a retry completes state without writing the target again
# Codes no retry can fix: fail at once and point the operator at the recovery runbook.
EXIT_NO_RETRY = {
    EXIT_BAD_INPUT: "DPONE_INVALID_INPUT",
    EXIT_COMMIT_UNKNOWN: "DPONE_TARGET_COMMIT_UNKNOWN",
    22: "DPONE_TARGET_COMMIT_INTENT_CONFLICT",
    25: "DPONE_UNAUTHORIZED",
    17: "DPONE_ENFORCEMENT_UNAVAILABLE",  # the deployment policy asks for enforced; the route cannot
    19: "DPONE_TARGET_COMMIT_JOURNAL_CORRUPT",  # damaged journal bytes: restore it, then rerun
    26: "DPONE_ROUTE_NOT_CERTIFIED",
    29: "DPONE_TARGET_COMMIT_DIVERGED",  # journal and fence disagree: an operator investigates
    30: "DPONE_AUTHENTICATION_FAILED",
    31: "DPONE_PERMISSION_DENIED",
    32: "DPONE_OBJECT_NOT_FOUND",
    33: "DPONE_DATA_REJECTED",
}
# Every other code is retried, 130 (DPONE_INTERRUPTED: the process was stopped) and 15
# (DPONE_TARGET_COMMITTED_UNRECORDED: this try's write committed, the retry records it without
# writing) included: the retry resumes the same journal entry.

# The workload, rendered by Airflow at run time. Every identity field is the same on every try
# and names the run's data, not the run: the DAG-run logical identity is the data interval. A run
# id would not do: its prefix and time differ between a scheduled, a manual and a backfill run of
# the same interval (`scheduled__…`, `manual__<trigger time>`, `backfill__…`), so each would be a
# new operation and load the interval again. Nor would `ds` (the logical date): a manual run of
# an interval has the interval's end as its logical date. `tojson` quotes every value.
WORKLOAD_TEMPLATE = """{%% set start = data_interval_start.in_timezone("UTC") -%%}
{%% set end = data_interval_end.in_timezone("UTC") -%%}
{%% set day = start.strftime("%%Y-%%m-%%d") -%%}
{
  "identity": {
    "release_id": %(release)s,
    "deployment_id": %(deployment)s,
    "dag_id": {{ dag.dag_id | tojson }},
    "dag_run_logical_identity": {{ ("data_interval:" ~ start.strftime("%%Y-%%m-%%dT%%H:%%M:%%SZ") ~ "/" ~ end.strftime("%%Y-%%m-%%dT%%H:%%M:%%SZ")) | tojson }},
    "workload_id": %(workload)s,
    "mapped_partition_identity": "region=eu",
    "canonical_interval": {
      "start": {{ start.strftime("%%Y-%%m-%%dT%%H:%%M:%%SZ") | tojson }},
      "end": {{ end.strftime("%%Y-%%m-%%dT%%H:%%M:%%SZ") | tojson }}
    },
    "canonical_target_identity": %(target)s
  },
  "intent": {
    "pack_fingerprint": "pack:3f1c9e",
    "normalized_load_strategy": "append",
    "source_snapshot_or_partition_identity": {{ ("source.orders:day=" ~ day) | tojson }},
    "target_contract": "events(id,day,amount,region)",
    "schema_fingerprint": "schema:v1"
  },
  "route": "postgres",
  "source": {"url": "postgres://dpone@orders-db:5432/orders", "password_env": "DPONE_SOURCE_PASSWORD", "table": "orders"},
  "target": {"url": "postgres://dpone@analytics-db:5432/analytics", "password_env": "DPONE_TARGET_PASSWORD", "table": "events"},
  "data": {"columns": ["id", "day", "amount", "region"], "natural_key": ["id"],
           "partition": {"column": "day", "value": {{ day | tojson }}}},
  "journal": "postgres://dpone@journal-db:5432/dpone",
  "execution": {"lease_ttl_ms": 30000, "state_dir": "/var/lib/dpone/state"}
}""" % {
    "release": '"%s"' % RELEASE_ID,
    "deployment": '"%s"' % DEPLOYMENT_ID,
    "workload": '"%s"' % WORKLOAD_ID,
    "target": '"%s"' % TARGET_IDENTITY,
}

# YAML is a superset of JSON, so the rendered document is a valid workload file.
POD_SCRIPT = (
    'printf "%s" "$DPONE_WORKLOAD" > /tmp/workload.yaml && '
    "exec dpone run --workload /tmp/workload.yaml --xcom /airflow/xcom/return.json --json"
)


def require_data_interval(context) -> None:
    """Refuses, without a retry, a run that has no data interval: it names no data to load."""
    if context.get("data_interval_start") is None or context.get("data_interval_end") is None:
        raise AirflowFailException(
            "dpone: this DAG run has no data interval (a manual run needs a logical date): "
            "nothing to load; not retried"
        )


def fail_or_retry(code: int | None, error: AirflowException) -> None:
    """Raises what Airflow should do after `dpone run` exited `code` (None: unknown, so retry).

    A no-retry code becomes AirflowFailException; anything else re-raises `error` and Airflow
    retries, which is safe: the retry resumes the same durable journal entry.
    """
    if code in EXIT_NO_RETRY:
        raise AirflowFailException(
            f"dpone exited {code} ({EXIT_NO_RETRY[code]}): not retried; see "
            "`dpone recovery target-commit inspect` in the recovery runbook"
        ) from error
    raise error


class DponePodOperator(KubernetesPodOperator):
    """KubernetesPodOperator that turns dpone's no-retry exit codes into AirflowFailException.

    This improves the task's UX only: if the exit code cannot be read (pod already gone), the
    plain failure lets Airflow retry, and the retry stops at the same durable journal state
    without mutating the target again.
    """

    def render_template_fields(self, context, jinja_env=None) -> None:
        require_data_interval(context)
        super().render_template_fields(context, jinja_env)

    def execute(self, context):
        try:
            return super().execute(context)
        except AirflowException as error:
            fail_or_retry(self._dpone_exit_code(), error)

    def _dpone_exit_code(self) -> int | None:
        pod = getattr(self, "pod", None)
        if pod is None:
            return None
        try:
            remote = self.pod_manager.read_pod(pod)
        except Exception:  # the pod is gone or the API is unreachable: let Airflow retry
            return None
        for status in (remote.status.container_statuses or []) if remote.status else []:
            terminated = status.state.terminated if status.state else None
            if status.name == "base" and terminated is not None:
                return terminated.exit_code
        return None


with DAG(
    dag_id="orders_daily",
    start_date=datetime(2026, 7, 1),
    # A data-interval timetable: each run covers [day, next day). (Airflow 3's "@daily" is a
    # CronTriggerTimetable whose runs have an empty interval, which dpone rejects as bad input.)
    schedule=CronDataIntervalTimetable("0 0 * * *", timezone="UTC"),
    catchup=False,
    default_args={"retries": 3, "retry_delay": timedelta(minutes=2)},
    tags=["dpone"],
) as dag:
    DponePodOperator(
        task_id="orders_to_events",
        name="dpone-orders-to-events",
        image=IMAGE,
        cmds=["sh", "-c"],
        arguments=[POD_SCRIPT],
        # env_vars is a templated field: rendered per task run, never at parse time.
        env_vars={"DPONE_WORKLOAD": WORKLOAD_TEMPLATE},
        # References only: Kubernetes injects the values into the pod; the scheduler never reads them.
        secrets=[
            Secret("env", "DPONE_SOURCE_PASSWORD", "dpone-orders-db", "password"),
            Secret("env", "DPONE_TARGET_PASSWORD", "dpone-analytics-db", "password"),
            Secret("env", "DPONE_JOURNAL_PASSWORD", "dpone-journal-db", "password"),
        ],
        do_xcom_push=True,
        # Keep failed pods so the exit code can be read; succeeded pods are removed.
        on_finish_action="delete_succeeded_pod",
    )
