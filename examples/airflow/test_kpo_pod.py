"""The production DAG's KubernetesPodOperator, checked with the real provider classes, no cluster.

Run with the pinned Airflow environment (harness/env/airflow/airflow-venv.sh):
    <venv>/bin/python -m unittest examples/airflow/test_kpo_pod.py

Real Airflow parses dpone_dag.py; the operator renders its templates for a DAG-run context and
builds the pod it would ask Kubernetes for. The checks: the command and the rendered workload,
passwords only as Secret references, the XCom sidecar and its volume, no restart in place, the
try number only in the pod's labels (never in the workload), and the label selector a retry uses
to re-attach to a pod a lost worker left running. Creating the pod needs a cluster: UNVERIFIED here.
"""

from __future__ import annotations

import copy
import json
import unittest
from pathlib import Path
from types import SimpleNamespace

try:
    import pendulum
    from airflow.dag_processing.dagbag import BundleDagBag
    from airflow.sdk.exceptions import AirflowFailException
except ImportError:  # plain python3 without the Airflow environment
    BundleDagBag = None

HERE = Path(__file__).resolve().parent
INTERVAL = "data_interval:2026-07-18T00:00:00Z/2026-07-19T00:00:00Z"


def load_task():
    bag = BundleDagBag(dag_folder=str(HERE), bundle_path=HERE, bundle_name="example")
    assert not bag.import_errors, bag.import_errors
    dag = bag.dags["orders_daily"]
    return dag, dag.task_dict["orders_to_events"]


def context(dag, run_id: str, try_number: int, start: str | None = "2026-07-18", logical: str | None = None):
    begin = pendulum.parse(start) if start else None
    ti = SimpleNamespace(dag_id=dag.dag_id, task_id="orders_to_events", map_index=-1, try_number=try_number)
    return {
        "dag": dag,
        "ti": ti,
        "task_instance": ti,
        "run_id": run_id,
        "dag_run": SimpleNamespace(run_id=run_id),
        "data_interval_start": begin,
        "data_interval_end": begin.add(days=1) if begin else None,
        "logical_date": pendulum.parse(logical) if logical else begin,
        "ds": (logical or start or "")[:10],
    }


def render(dag, task, ctx):
    """A fresh copy of the operator, rendered for `ctx`, and the pod it would create."""
    task = copy.deepcopy(task)
    task.render_template_fields(ctx, jinja_env=dag.get_template_env())
    # dry_run: everything but the one label that needs a Kubernetes API client (in-cluster or not).
    return task, task.build_pod_request_obj(ctx, dry_run=True)


def env_of(container) -> dict:
    return {item.name: item for item in container.env or []}


@unittest.skipIf(BundleDagBag is None, "needs the Airflow environment (harness/env/airflow/airflow-venv.sh)")
class KubernetesPodOperatorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dag, cls.task = load_task()

    def test_the_pod_runs_dpone_with_the_rendered_workload(self):
        _, pod = render(self.dag, self.task, context(self.dag, "scheduled__2026-07-19T00:00:00+00:00", 1))
        base = next(c for c in pod.spec.containers if c.name == "base")
        self.assertEqual(base.image, "registry.example.com/dpone:0.1.0")
        self.assertEqual(base.command, ["sh", "-c"])
        self.assertEqual(len(base.args), 1)
        self.assertIn("exec dpone run --workload /tmp/workload.yaml --xcom /airflow/xcom/return.json --json", base.args[0])
        workload = json.loads(env_of(base)["DPONE_WORKLOAD"].value)
        self.assertEqual(workload["identity"]["dag_run_logical_identity"], INTERVAL)
        self.assertEqual(workload["identity"]["canonical_interval"], {"start": "2026-07-18T00:00:00Z", "end": "2026-07-19T00:00:00Z"})
        self.assertEqual(workload["data"]["partition"]["value"], "2026-07-18")
        self.assertEqual(pod.spec.restart_policy, "Never")  # Airflow decides retries, not the kubelet

    def test_passwords_reach_the_pod_only_as_secret_references(self):
        _, pod = render(self.dag, self.task, context(self.dag, "scheduled__2026-07-19T00:00:00+00:00", 1))
        env = env_of(next(c for c in pod.spec.containers if c.name == "base"))
        for name in ("DPONE_SOURCE_PASSWORD", "DPONE_TARGET_PASSWORD", "DPONE_JOURNAL_PASSWORD"):
            self.assertIsNone(env[name].value, name)
            self.assertEqual(env[name].value_from.secret_key_ref.key, "password")
        self.assertNotIn("password=", env["DPONE_WORKLOAD"].value.lower())

    def test_the_xcom_sidecar_reads_the_file_dpone_writes(self):
        _, pod = render(self.dag, self.task, context(self.dag, "scheduled__2026-07-19T00:00:00+00:00", 1))
        names = [c.name for c in pod.spec.containers]
        self.assertEqual(names, ["base", "airflow-xcom-sidecar"])
        for container in pod.spec.containers:
            mounts = {m.mount_path for m in container.volume_mounts or []}
            self.assertIn("/airflow/xcom", mounts, container.name)
        self.assertIn("xcom", {v.name for v in pod.spec.volumes})

    def test_the_try_number_is_a_pod_label_never_part_of_the_workload(self):
        first_task, first = render(self.dag, self.task, context(self.dag, "scheduled__2026-07-19T00:00:00+00:00", 1))
        _, retry = render(self.dag, self.task, context(self.dag, "scheduled__2026-07-19T00:00:00+00:00", 3))
        workload = lambda pod: env_of(pod.spec.containers[0])["DPONE_WORKLOAD"].value  # noqa: E731
        self.assertEqual(workload(first), workload(retry))
        self.assertEqual((first.metadata.labels["try_number"], retry.metadata.labels["try_number"]), ("1", "3"))
        # A retry looks for a running pod of the same run without the try number and re-attaches
        # to it (reattach_on_restart) instead of starting a second dpone next to it.
        selector = first_task._build_find_pod_label_selector(
            context(self.dag, "scheduled__2026-07-19T00:00:00+00:00", 2)
        )
        self.assertTrue(first_task.reattach_on_restart)
        self.assertNotIn("try_number", selector)
        self.assertIn("run_id=", selector)

    def test_a_manual_or_backfill_run_of_the_interval_renders_the_same_workload(self):
        runs = [
            context(self.dag, "scheduled__2026-07-19T00:00:00+00:00", 1),
            context(self.dag, "manual__2026-11-30T20:09:57.074466+00:00", 1, logical="2026-07-19"),
            context(self.dag, "backfill__2026-07-19T00:00:00+00:00", 2),
        ]
        rendered = {env_of(render(self.dag, self.task, ctx)[1].spec.containers[0])["DPONE_WORKLOAD"].value for ctx in runs}
        self.assertEqual(len(rendered), 1)

    def test_a_run_without_a_data_interval_fails_without_a_retry(self):
        with self.assertRaises(AirflowFailException):
            render(self.dag, self.task, context(self.dag, "manual__2026-11-30T20:09:56.613065+00:00", 1, start=None))


if __name__ == "__main__":
    unittest.main()
