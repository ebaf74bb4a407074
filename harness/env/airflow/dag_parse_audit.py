"""Parses a DAG folder with real Airflow and records what parsing touched.

    python dag_parse_audit.py DAG_FOLDER      (with the pinned Airflow environment's python)

Prints one line, `DPONE_DAG_PARSE_AUDIT <JSON>`: the DAG ids Airflow found, its import errors, and the forbidden accesses
made while Airflow parsed the folder (its DagBag, the code path the DAG processor runs):

* `network`: socket connects, DNS look-ups, datagrams (audit events socket.*);
* `open`: files opened outside the DAG folder and the Python installation (Python's own
  libraries and the environment's packages are where imports come from);
* `process`: subprocesses and os.system/exec (a DAG must not run programs to be parsed);
* `sqlite`: SQLite connections (a journal or a target read at parse time);
* `environ`: reads of environment variables that hold or lead to secrets: names with PASSWORD,
  SECRET, TOKEN, CREDENTIAL or KEY, dpone's own (DPONE_*), and Airflow Variables and
  Connections from the environment (AIRFLOW_VAR_*, AIRFLOW_CONN_*). Audit hooks do not see
  environment reads, so os.environ (and with it os.getenv) is wrapped for the parse.

Airflow's own start-up (configuration, its metadata database, logging) happens before the
recording starts. Exit 0 when the folder parsed (whatever was recorded), 2 on bad usage.
"""

from __future__ import annotations

import json
import os
import re
import site
import sys
import sysconfig
from pathlib import Path

SECRET_NAME = re.compile(r"PASSWORD|SECRET|TOKEN|CREDENTIAL|KEY|^DPONE_|^AIRFLOW_VAR_|^AIRFLOW_CONN_", re.I)
# Airflow's own configuration lookups (AIRFLOW__SECTION__KEY[_CMD|_SECRET]) are not the DAG's.
AIRFLOW_CONFIG = re.compile(r"^AIRFLOW__[A-Z0-9_]+__")
NETWORK_EVENTS = {"socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.sendto", "socket.sendmsg"}
PROCESS_EVENTS = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork"}
ALLOWED_DEVICES = {os.devnull, "/dev/urandom", "/etc/localtime"}
# Read by Python's ssl module whenever a default context is made: a debug file path, no secret.
NOT_SECRETS = {"SSLKEYLOGFILE"}
# The report is the one stdout line that starts with this (Airflow logs to stdout too).
REPORT_PREFIX = "DPONE_DAG_PARSE_AUDIT "

events: list[dict] = []
recording = False


def python_roots() -> list[str]:
    """Where Python's own libraries and the environment's packages live: imports read there."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *site.getsitepackages()}
    roots.update(path for path in sysconfig.get_paths().values() if path)
    roots.add("/usr/share/zoneinfo")
    return sorted(os.path.realpath(root) for root in roots)


def outside(path: str, folder: str, roots: list[str]) -> bool:
    real = os.path.realpath(path)
    if real in ALLOWED_DEVICES or real.startswith("/proc/self/") or real.startswith("/sys/"):
        return False
    return not any(real == root or real.startswith(root + os.sep) for root in [folder, *roots])


def install(folder: str) -> None:
    folder, roots = os.path.realpath(folder), python_roots()

    def hook(event: str, args: tuple) -> None:
        if not recording:
            return
        if event in NETWORK_EVENTS:
            events.append({"kind": "network", "event": event, "detail": repr(args[1:2])[:200]})
        elif event in PROCESS_EVENTS:
            events.append({"kind": "process", "event": event, "detail": repr(args[:1])[:200]})
        elif event == "sqlite3.connect":
            events.append({"kind": "sqlite", "event": event, "detail": repr(args[:1])[:200]})
        elif event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.fsdecode(args[0])
            if outside(path, folder, roots):
                events.append({"kind": "open", "event": event, "detail": path})

    sys.addaudithook(hook)

    class AuditedEnviron(type(os.environ)):
        def __getitem__(self, key):
            if (
                recording
                and isinstance(key, str)
                and SECRET_NAME.search(key)
                and not AIRFLOW_CONFIG.match(key)
                and key not in NOT_SECRETS
            ):
                events.append({"kind": "environ", "event": "os.environ[]", "detail": key})
            return super().__getitem__(key)

    os.environ.__class__ = AuditedEnviron


def main(argv: list[str]) -> int:
    global recording
    if len(argv) != 2 or not Path(argv[1]).is_dir():
        print("usage: dag_parse_audit.py DAG_FOLDER", file=sys.stderr)
        return 2
    folder = Path(argv[1]).resolve()
    # Airflow's own start-up first: configuration, settings, its metadata database.
    from airflow.dag_processing.dagbag import BundleDagBag

    install(str(folder))
    recording = True
    try:
        bag = BundleDagBag(dag_folder=str(folder), bundle_path=folder, bundle_name="audit")
    finally:
        recording = False
    report = {
        "dags": sorted(bag.dag_ids),
        "import_errors": {str(path): str(error).strip().splitlines()[-1:] for path, error in bag.import_errors.items()},
        "events": events,
    }
    print(REPORT_PREFIX + json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
