#!/usr/bin/env bash
# Provisions the pinned Apache Airflow environment the airflow-live cells and the DAG tests use:
#
#   bash harness/env/airflow/airflow-venv.sh        # prints the environment's folder
#
# Every package is pinned by constraints-py3.11.txt (installed with --no-deps: that file is the
# whole environment). The environment is cached in
#   ${DPONE_AIRFLOW_CACHE:-$HOME/.cache/dpone-airflow}/airflow-<version>-py3.11-<digest of the pins>/
# and reused when its stamp matches (a second or two); a changed pin list builds a new one. It
# also holds a migrated Airflow metadata database (SQLite) the harness copies for each run.
# harness/env/airflow/airflow-venv.ts finds the same folder from the same file.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
pins="$here/constraints-py3.11.txt"
cache="${DPONE_AIRFLOW_CACHE:-$HOME/.cache/dpone-airflow}"
python="${DPONE_AIRFLOW_PYTHON:-}"

log() { printf '[airflow-venv] %s\n' "$*" >&2; }

version="$(sed -n 's/^apache-airflow==//p' "$pins")"
digest="$(sha256sum "$pins" | cut -c1-12)"
venv="$cache/airflow-$version-py3.11-$digest"
stamp="$venv/.dpone-provisioned"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$digest" ]; then
  printf '%s\n' "$venv"
  exit 0
fi

if [ -z "$python" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null &&
      [ "$("$candidate" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" = "3.11" ]; then
      python="$candidate"
      break
    fi
  done
fi
if [ -z "$python" ]; then
  log "no Python 3.11 found (the pins are for CPython 3.11); set DPONE_AIRFLOW_PYTHON"
  exit 1
fi

mkdir -p "$cache"
# One builder at a time; a second caller waits and then finds the stamp.
exec 9>"$cache/.lock-$digest"
flock 9
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$digest" ]; then
  printf '%s\n' "$venv"
  exit 0
fi

started=$SECONDS
log "building $venv (Airflow $version, $(grep -c '==' "$pins") pinned packages)"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --no-deps --no-input -r "$pins"
"$venv/bin/pip" check >&2

# A migrated metadata database to copy per run (migrating takes ~10 s; copying is instant).
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
AIRFLOW_HOME="$home" \
  AIRFLOW__CORE__LOAD_EXAMPLES=False \
  AIRFLOW__DATABASE__SQL_ALCHEMY_CONN="sqlite:///$venv/dpone-metadata.db" \
  "$venv/bin/airflow" db migrate >"$home/migrate.log" 2>&1 || {
  cat "$home/migrate.log" >&2
  exit 1
}

printf '%s' "$digest" >"$stamp"
log "ready in $((SECONDS - started)) s"
printf '%s\n' "$venv"
