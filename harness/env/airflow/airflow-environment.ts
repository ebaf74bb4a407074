import { describeError } from '../../evidence/error-description.ts';
import { findAirflowVenv } from './airflow-venv.ts';
import { LocalAirflow } from './local-airflow.ts';

export type AirflowStart =
  | { readonly status: 'started'; readonly airflow: LocalAirflow }
  | {
      readonly status: 'unavailable';
      readonly reason: string;
      /** With CI=true a missing Airflow is a failure (CI provisions it), else UNVERIFIED. */
      readonly failure: boolean;
    };

/**
 * Starts the local Airflow the airflow-live cells run on, from the provisioned environment.
 * Never throws: a missing environment (found in milliseconds) or one that does not start gives
 * the reason, and each airflow-live cell then reports it instead of running.
 */
export async function startAirflow(workDir: string, env: NodeJS.ProcessEnv): Promise<AirflowStart> {
  const failure = env.CI === 'true';
  const found = findAirflowVenv(env);
  if (found.status === 'missing')
    return { status: 'unavailable', reason: `Airflow: ${found.reason}`, failure };
  try {
    return { status: 'started', airflow: await LocalAirflow.start(found.venv, workDir, env) };
  } catch (error) {
    return { status: 'unavailable', reason: `Airflow: ${describeError(error)}`, failure };
  }
}
