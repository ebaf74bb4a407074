import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Airflow provisioning script (issue 13), when this checkout has it. */
const PROVISION_SCRIPT = fileURLToPath(new URL('../env/airflow/airflow-venv.sh', import.meta.url));

export interface AirflowProbe {
  readonly present: boolean;
  readonly detail: string;
  readonly install: string;
}

/**
 * The Airflow environments to look at, in order: $DPONE_AIRFLOW_VENV, then what the provisioning
 * script builds under ${DPONE_AIRFLOW_CACHE:-~/.cache/dpone-airflow} (one `airflow-<version>-…`
 * folder per pin list, newest name first), then a plain `venv` there.
 */
export function airflowCandidates(env: NodeJS.ProcessEnv): string[] {
  const cache = env.DPONE_AIRFLOW_CACHE || join(env.HOME || homedir(), '.cache', 'dpone-airflow');
  let built: string[] = [];
  try {
    built = readdirSync(cache)
      .filter((name) => name.startsWith('airflow-'))
      .sort()
      .reverse()
      .map((name) => join(cache, name));
  } catch {
    // no cache yet
  }
  return [...(env.DPONE_AIRFLOW_VENV ? [env.DPONE_AIRFLOW_VENV] : []), ...built, join(cache, 'venv')];
}

function version(python: string): Promise<string | null> {
  // `airflow version` imports all of Airflow (seconds); the package metadata answers at once.
  const code = 'import importlib.metadata as m; print("Airflow " + m.version("apache-airflow"))';
  return new Promise((resolve) => {
    execFile(python, ['-c', code], { timeout: 3_000, encoding: 'utf8' }, (error, stdout) =>
      resolve(error ? null : String(stdout).trim() || null),
    );
  });
}

export async function probeAirflow(env: NodeJS.ProcessEnv): Promise<AirflowProbe> {
  const install = existsSync(PROVISION_SCRIPT)
    ? 'bash harness/env/airflow/airflow-venv.sh'
    : 'python3 -m venv ~/.cache/dpone-airflow/venv && ~/.cache/dpone-airflow/venv/bin/pip install apache-airflow==3.3.2 apache-airflow-providers-cncf-kubernetes';
  const candidates = airflowCandidates(env);
  for (const dir of candidates) {
    if (!existsSync(join(dir, 'bin', 'airflow'))) continue;
    const found = await version(join(dir, 'bin', 'python'));
    return { present: true, detail: `${found ?? 'Airflow (version unknown)'} (${dir})`, install };
  }
  return {
    present: false,
    detail: `no Airflow environment in ${candidates.at(-1)!.replace(/\/venv$/, '')}`,
    install,
  };
}
