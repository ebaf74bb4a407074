import { writeFileAtomically } from './atomic-file.ts';

/** Where KubernetesPodOperator reads a task's XCom from inside the pod. */
export const KPO_XCOM_PATH = '/airflow/xcom/return.json';

/** Environment variable that asks `dpone run` to write its result as XCom. */
export const XCOM_PATH_ENV = 'DPONE_XCOM_PATH';

/**
 * Writes the run result as the task's XCom. The XCom is a projection for Airflow, never the source
 * of truth (the journal is): a failure to write it is reported on `stderr` as a secondary failure
 * and never throws, so it cannot change the run's outcome or exit code. Resolves to whether it
 * was written.
 */
export async function writeXcom(
  path: string,
  result: unknown,
  stderr: NodeJS.WritableStream,
): Promise<boolean> {
  try {
    await writeFileAtomically(path, `${JSON.stringify(result)}\n`);
    return true;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException | null)?.code ?? 'unknown error';
    stderr.write(
      `dpone: secondary failure: the XCom result could not be written to ${path} (${reason}); the outcome is unchanged\n`,
    );
    return false;
  }
}
