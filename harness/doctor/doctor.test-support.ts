import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Component } from './doctor-probes.ts';
import { diagnose } from './doctor.ts';

/**
 * Doctor's components in the order it lists them, probed in this process with a Docker engine
 * that does not answer and no Airflow environment (so it takes no time to find neither), `env`
 * added: for an engine's tests of its own components and where they stand among the others.
 */
export async function doctorComponents(env: NodeJS.ProcessEnv = {}): Promise<readonly Component[]> {
  const report = await diagnose({
    env: {
      ...process.env,
      DOCKER_HOST: 'tcp://127.0.0.1:1',
      DPONE_AIRFLOW_VENV: '',
      // A cache folder that does not exist: no environment built yet.
      DPONE_AIRFLOW_CACHE: join(tmpdir(), 'dpone-doctor-no-airflow-cache'),
      ...env,
    },
    nodeVersion: process.versions.node,
    isRoot: process.getuid?.() === 0,
  });
  return report.components;
}

/** The ids of doctor's components, in its order. */
export async function componentIds(): Promise<string[]> {
  return (await doctorComponents()).map((component) => component.id);
}
