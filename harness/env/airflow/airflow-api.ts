import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';

/** A DAG run as Airflow's REST API (v2) reports it: the fields the harness reads. */
export interface DagRunInfo {
  readonly dag_run_id: string;
  readonly run_type: string;
  readonly state: string;
  readonly logical_date: string | null;
  readonly data_interval_start: string | null;
  readonly data_interval_end: string | null;
}

/** One try of a task instance (`…/taskInstances/{task}/tries`), or the task instance itself. */
export interface TaskTryInfo {
  readonly try_number: number;
  readonly max_tries: number;
  readonly state: string | null;
  readonly pid: number | null;
}

const enc = encodeURIComponent;
const RETRIES_ON_LOCK = 8;

/**
 * The slice of Airflow 3's public REST API (/api/v2) the harness drives: DAG runs, task
 * instances and their tries, clearing a task, backfills. The local server runs with the simple
 * auth manager and every user an admin, so no token is needed (loopback only).
 */
export class AirflowApi {
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  async #call<T>(method: string, path: string, body?: unknown, accept: number[] = []): Promise<T | null> {
    let response: Response;
    for (let attempt = 1; ; attempt++) {
      response = await fetch(`${this.baseUrl}/api/v2${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
      // 503: the SQLite metadata database was locked and the request rolled back; ask again.
      if (response.status !== 503 || attempt === RETRIES_ON_LOCK) break;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
    }
    if (accept.includes(response.status)) return null;
    if (!response.ok) {
      // The response body may echo request values; keep only the status and the route.
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        `Airflow API ${method} ${path.split('?')[0]} answered ${response.status}`,
      );
    }
    return response.status === 204 ? null : ((await response.json()) as T);
  }

  /** Scheduler and DAG processor heartbeats are healthy. */
  async healthy(): Promise<boolean> {
    const health = await this.#call<Record<string, { status: string | null }>>('GET', '/monitor/health');
    return health?.scheduler?.status === 'healthy' && health?.dag_processor?.status === 'healthy';
  }

  /**
   * The scheduler's and DAG processor's latest heartbeats, as one text that changes while they
   * live: what a wait on Airflow counts as progress (empty when the API does not answer).
   */
  async heartbeats(): Promise<string> {
    type Health = Record<string, Record<string, string | null> | undefined>;
    const health = await this.#call<Health>('GET', '/monitor/health').catch(() => null);
    const scheduler = health?.scheduler?.latest_scheduler_heartbeat ?? '';
    const processor = health?.dag_processor?.latest_dag_processor_heartbeat ?? '';
    return scheduler || processor ? `scheduler ${scheduler}, dag processor ${processor}` : '';
  }

  /** Whether Airflow has parsed and serialized the DAG. */
  async hasDag(dagId: string): Promise<boolean> {
    return (await this.#call('GET', `/dags/${enc(dagId)}`, undefined, [404])) !== null;
  }

  /** The DAG's task ids (empty before the DAG is parsed). */
  async taskIds(dagId: string): Promise<string[]> {
    const page = await this.#call<{ tasks: { task_id: string }[] }>(
      'GET',
      `/dags/${enc(dagId)}/tasks`,
      undefined,
      [404],
    );
    return (page?.tasks ?? []).map((task) => task.task_id);
  }

  async dagRuns(dagId: string): Promise<DagRunInfo[]> {
    const page = await this.#call<{ dag_runs: DagRunInfo[] }>('GET', `/dags/${enc(dagId)}/dagRuns?limit=100`);
    return page?.dag_runs ?? [];
  }

  /**
   * Triggers a manual run; `logicalDate` null is a run without a logical date (and interval).
   * Without `interval` Airflow infers the interval that ends at the logical date.
   */
  async triggerRun(
    dagId: string,
    logicalDate: string | null,
    interval?: { readonly start: string; readonly end: string },
  ): Promise<DagRunInfo> {
    const run = await this.#call<DagRunInfo>('POST', `/dags/${enc(dagId)}/dagRuns`, {
      logical_date: logicalDate,
      ...(interval ? { data_interval_start: interval.start, data_interval_end: interval.end } : {}),
    });
    return run!;
  }

  async deleteRun(dagId: string, runId: string): Promise<void> {
    await this.#call('DELETE', `/dags/${enc(dagId)}/dagRuns/${enc(runId)}`);
  }

  /** A backfill of [from, to] logical dates; `reprocess` none: only intervals without a run. */
  async backfill(dagId: string, from: string, to: string): Promise<void> {
    await this.#call('POST', '/backfills', {
      dag_id: dagId,
      from_date: from,
      to_date: to,
      reprocess_behavior: 'none',
    });
  }

  /** The task instance now (state, try_number, max_tries, pid); null before it exists. */
  async taskInstance(dagId: string, runId: string, taskId: string): Promise<TaskTryInfo | null> {
    return this.#call<TaskTryInfo>(
      'GET',
      `/dags/${enc(dagId)}/dagRuns/${enc(runId)}/taskInstances/${enc(taskId)}`,
      undefined,
      [404],
    );
  }

  /** Every try of the task instance, oldest first, with the state each try ended in. */
  async tries(dagId: string, runId: string, taskId: string): Promise<TaskTryInfo[]> {
    const page = await this.#call<{ task_instances: TaskTryInfo[] }>(
      'GET',
      `/dags/${enc(dagId)}/dagRuns/${enc(runId)}/taskInstances/${enc(taskId)}/tries`,
    );
    return [...(page?.task_instances ?? [])].sort((a, b) => a.try_number - b.try_number);
  }

  /** Clears the task in one run (Airflow's "Clear"): it runs again as a new try. */
  async clearTask(dagId: string, runId: string, taskId: string): Promise<void> {
    await this.#call('POST', `/dags/${enc(dagId)}/clearTaskInstances`, {
      dry_run: false,
      dag_run_id: runId,
      task_ids: [taskId],
      only_failed: false,
      reset_dag_runs: true,
    });
  }
}
