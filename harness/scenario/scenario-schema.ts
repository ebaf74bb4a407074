import { clockSkewFault } from './clock-skew-schema.ts';
import type { FromSchema } from './schema-type.ts';
import { referenceFault, statementFault } from './statement-schema.ts';
import { shadowFault } from './shadow-schema.ts';

/** The fault kinds a scenario may name; each has a module in harness/faults. */
export const FAULT_KINDS = [
  'crash',
  'pause',
  'race',
  'intent-conflict',
  'airflow-retry',
  'recovery',
  'network',
  'lost-ack',
  'server-kill',
  'journal-loss',
  'fence-loss',
  'airflow-live',
  'stall',
  'lost-commit',
  'clock-skew',
  'statement',
  'reference',
  'shadow',
  'power-loss',
  'full-disk',
  'journal-corruption',
  'read-only-disk',
] as const;

/**
 * Which storage a power-loss cell puts on the power-loss filesystem (harness/faults/power-loss-fault.ts):
 * the embedded file journal, the embedded file target, or the data directory of a server the cell
 * owns (its target's, with the journal on it).
 */
export const POWER_LOSS_STORAGES = ['journal', 'target', 'server'] as const;

/**
 * Where a full-disk cell puts the size-limited file system (harness/faults/full-disk-fault.ts): the
 * embedded file journal's folder, the embedded file target, or the data directory of a server the cell owns
 * (its target's, with the journal on it).
 */
export const FULL_DISK_STORAGES = ['journal', 'target', 'server'] as const;

/** The full-disk storages of a fault that names none: the local files (a server's cells are asked for by name). */
export const FULL_DISK_DEFAULT_STORAGES = ['journal', 'target'] as const;

/** Which storage a read-only-disk cell remounts read-only (harness/faults/read-only-disk-fault.ts). */
export const READ_ONLY_DISK_STORAGES = ['journal', 'target'] as const;

/** How a journal-corruption cell damages the journal file (harness/faults/journal-corruption-fault.ts). */
export const JOURNAL_DAMAGE_SHAPES = ['rows', 'header', 'truncation', 'fields'] as const;

/**
 * The shapes of a fault that names none: a journal file's bytes. `fields` (a server journal's row
 * changed behind the journal's back, as the server's superuser) is asked for by name.
 */
export const JOURNAL_DAMAGE_DEFAULT_SHAPES = ['rows', 'header', 'truncation'] as const;

/** The airflow-live cases (harness/faults/airflow-live-cases.ts). */
export const AIRFLOW_LIVE_CASES = [
  'pod-lost',
  'xcom-lost',
  'runner-lost',
  'worker-lost',
  'unknown',
  'cleared',
  'retriggered',
  'identity',
  'shadow',
] as const;

/**
 * The cases a scenario runs when it names none: every case but `shadow`, which needs a workload
 * written without a fence (`workload.fence: none`) and so lives in a scenario of its own.
 */
export const AIRFLOW_LIVE_DEFAULT_CASES = AIRFLOW_LIVE_CASES.filter((name) => name !== 'shadow');

const pointPattern = '^[a-z][A-Za-z0-9_.:>-]*(#[1-9][0-9]*)?$';

const crashFault = {
  type: 'object',
  description:
    'SIGKILL at every fault point of a clean run (depth 1), then at every point of each recovery run (depth 2), plus seeded random kill times.',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'crash' },
    depth: {
      enum: [1, 2],
      description: 'Deepest kill: 1 = first attempt only, 2 = also inside each recovery attempt. Default 2.',
    },
    distinct_states: {
      type: 'boolean',
      description:
        'Depth 2 once per distinct durable state a first-attempt kill leaves (kills leaving equal states share one recovery run; the evidence lists them). Default true; false: after every first-attempt kill.',
    },
    recovery_points: {
      enum: ['all', 'transitions'],
      description:
        "Where depth 2 kills the recovery attempt: 'all' = at every point of its trace; 'transitions' = at each journal transition (cas:*:before/after) only, so every transition of the recovery run is still killed, after every distinct first-attempt kill, in fewer cells (for routes whose cell state lives on a server and cannot be copied, each depth-2 cell replays its first attempt). Default all.",
    },
    random: {
      type: 'integer',
      minimum: 0,
      maximum: 1000,
      description: 'Number of seeded random kill times. Default 4.',
    },
    random_window: {
      enum: ['run', 'mutation'],
      description:
        "Where the random kills land. 'run' = a seeded delay of 40-700 ms after the worker starts (start-up, the run, or after it). 'mutation' = while the target writes the rows: the worker is let past target.mutate:begin and killed a seeded fraction of the window later, the window being how long the clean reference run took from target.mutate:begin to its next end point (target.commit:before, target.stage:after or target.mutate:after); the evidence records the fraction, the delay and the point the killed worker last passed, and the report counts the kills that landed inside. Default run.",
    },
  },
} as const;

const pauseFault = {
  type: 'object',
  description:
    'SIGSTOP a worker at a fault point, let its lease expire, run a second worker to its end, then SIGCONT the first: at every point of a clean run (depth 1) and, after each distinct first-attempt kill from COMMITTING on, at every point of the recovery run while it reconciles (depth 2).',
  additionalProperties: false,
  required: ['kind'],
  dependentRequired: { hold_second_at: ['points'] },
  properties: {
    kind: { const: 'pause' },
    points: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'string',
        pattern: pointPattern,
        description: 'A fault point, optionally `#hit` (default #1).',
      },
      description: 'Pause only at these first-attempt points instead of every point of the clean trace.',
    },
    depth: {
      enum: [1, 2],
      description:
        'Deepest pause: 1 = first attempt only, 2 = also inside reconciling recovery runs. Default 2.',
    },
    distinct_states: {
      type: 'boolean',
      description:
        'Depth 2 once per distinct durable state a first-attempt kill leaves (as crash). Default true.',
    },
    lease_ttl_ms: {
      type: 'integer',
      minimum: 50,
      maximum: 60000,
      description: 'Lease TTL of the generated workload. Default 300.',
    },
    late_rows: {
      type: 'integer',
      minimum: 0,
      maximum: 1000,
      description:
        'Rows added to the loaded source partition while the first worker is stopped: the zombie holds another batch than the next holder reads. Default 0.',
    },
    hold_second_at: {
      type: 'string',
      pattern: pointPattern,
      description:
        'With `points`: the second worker parks at this point (optionally `#hit`) holding what it took there, the stopped first is continued and runs out while it does, then the second is released. The one interleaving in which a zombie meets a journal another executor has leased but not yet advanced.',
    },
  },
} as const;

const raceFault = {
  type: 'object',
  description: 'N workers on one operation, released at the same moment.',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'race' },
    workers: {
      type: 'integer',
      minimum: 2,
      maximum: 64,
      description: 'Number of racing workers. Default 2.',
    },
  },
} as const;

const intentConflictFault = {
  type: 'object',
  description: 'The same operation id with another intent digest must fail before any source or target I/O.',
  additionalProperties: false,
  required: ['kind'],
  properties: { kind: { const: 'intent-conflict' } },
} as const;

const airflowRetryFault = {
  type: 'object',
  description:
    'Airflow retries emulated: each try a new process, lost at seeded points, XCom file lost between tries.',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'airflow-retry' },
    tries: {
      type: 'integer',
      minimum: 1,
      maximum: 10,
      description: 'Tries per task (retries + 1). Default 4.',
    },
    cases: { type: 'integer', minimum: 1, maximum: 100, description: 'Seeded cases to run. Default 3.' },
  },
} as const;

const airflowLiveFault = {
  type: 'object',
  description:
    "A real Airflow (scheduler, LocalExecutor, API server) runs the production DAG's dpone command with retries=3; the harness SIGKILLs dpone (the pod lost), the task runner or the executor worker, spoils the XCom, drives an unknown outcome, clears the task and runs the interval again.",
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'airflow-live' },
    cases: {
      type: 'array',
      minItems: 1,
      items: { enum: AIRFLOW_LIVE_CASES },
      description:
        'Cases to run. Default all but shadow (the DAG run under a shadow deployment policy, its first pod lost after the shadow record, Airflow retrying: needs workload.fence: none).',
    },
    random: {
      type: 'integer',
      minimum: 0,
      maximum: 20,
      description:
        'Seeded cases losing the pod in tries 1-3 at points of the clean trace (try 4 is clean). Default 1.',
    },
    retry_delay_s: {
      type: 'integer',
      minimum: 1,
      maximum: 120,
      description: "The DAG's retry_delay in seconds (production: 2 minutes). Default 2.",
    },
  },
} as const;

const networkFault = {
  type: 'object',
  description:
    'Toxiproxy faults on the worker connections: park the worker at each phase, install each toxic on the proxy that phase uses, release it, then recover.',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'network' },
    toxics: {
      type: 'array',
      minItems: 1,
      items: { enum: ['reset_peer', 'timeout', 'limit_data', 'latency', 'down'] },
      description: 'Toxics to apply. Default all five.',
    },
    phases: {
      type: 'array',
      minItems: 1,
      items: {
        enum: [
          'before-intent',
          'fence-prepare',
          'mutation',
          'commit',
          'fence-query',
          'state-complete',
          'stage',
          'staged',
          'settle',
        ],
      },
      description:
        "Phases to hit. Default every phase the route has: the six shared ones whose connection goes through a proxy, and the target's own (a staging target's: stage, staged, settle).",
    },
    heal_at: {
      type: 'string',
      minLength: 1,
      description:
        "A fault point of the same attempt where the network comes back (the toxic is removed while the worker is parked there), e.g. 'target.mutate:after': the fence is then asked while what the failed step left behind is still there. Such a run must stop at COMMIT_UNKNOWN; the harness resolves it as the operator from the target's rows. Default: the toxic stays until the attempt ended.",
    },
  },
} as const;

const lostAckFault = {
  type: 'object',
  description:
    'Lost acknowledgement: a downstream timeout toxic (timeout 0) installed just before COMMIT, so the server commits and the client never hears back.',
  additionalProperties: false,
  required: ['kind'],
  properties: { kind: { const: 'lost-ack' } },
} as const;

const stallFault = {
  type: 'object',
  description:
    "A stalled target: at each phase the worker is parked, the target backend serving its session is SIGSTOPped (or Toxiproxy stops every server→client byte on the target's connection), the worker released. It must end on its own within the stated bound (2 × query_timeout_ms + connect_timeout_ms + 5 s); then the backend resumes, and the next worker finishes with exactly one mutation. Routes whose target is a server the cell can own, with a backend process per session.",
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'stall' },
    phases: {
      type: 'array',
      minItems: 1,
      items: { enum: ['fence-prepare', 'guard', 'copy', 'commit', 'fence-query'] },
      description: 'Phases to stall in. Default all.',
    },
    methods: {
      type: 'array',
      minItems: 1,
      items: { enum: ['sigstop', 'no-answer'] },
      description:
        "sigstop: SIGSTOP of the target backend; no-answer: a Toxiproxy timeout toxic (timeout 0) on the target's server→client stream. Default both.",
    },
  },
} as const;

const lostCommitFault = {
  type: 'object',
  description:
    "A commit the target acknowledged and then lost: the target runs on a primary with an asynchronous streaming standby; the standby's WAL receiver is SIGSTOPped, a worker commits and completes, the primary is SIGKILLed, the stopped receiver killed (its unread WAL dies with it), the standby promoted and put on the primary's address. A run must then exit DIVERGED (29), never already-complete with the rows missing; the operator's reopen follows, and the next run must land exactly one mutation.",
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'lost-commit' },
  },
} as const;

const powerLossFault = {
  type: 'object',
  description:
    "A power cut under the embedded file journal, the embedded file target, or a server's data directory: that file (or folder) lives on the power-loss filesystem (harness/env/lossyfs: written data is kept in memory until fsync, directory entries until the directory is fsynced). At every transition point of a clean run (for the target also at every statement boundary of its mutation step; for a server after every journal write and after the target's commit) the first attempt is SIGKILLed and the power cut with it (a server is SIGKILLed too, and restarted after the cut); the storage must then hold everything the killed attempt had committed to it, and the retry, on the same filesystem, must end with exactly one mutation in the target. UNVERIFIED where FUSE is unavailable or the route's journal or target is not of that kind.",
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'power-loss' },
    storages: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { enum: POWER_LOSS_STORAGES },
      description:
        "What lives on the power-loss filesystem: the embedded file journal, the embedded file target, or (server) the data directory of the cell's own target server with the journal on it (a server engine's route). Default the journal only.",
    },
  },
} as const;

const fullDiskFault = {
  type: 'object',
  description:
    "A full disk under the embedded file journal, the embedded file target, or a server's data directory: the storage lives on a size-limited tmpfs. At every transition point of a clean run (for a server after every journal write and after the target's commit) the first attempt parks, the tmpfs is filled to its last block (a ballast file) and the attempt goes on: it must exit 18 STORAGE_FULL naming the file and the cause (or complete, when nothing it still had to write needed a new block), leave the target with none or all of the load and hand its lease back; the ballast removed, one retry must land exactly one mutation. UNVERIFIED where a tmpfs cannot be mounted (not root) or the route's journal or target is not of that kind.",
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'full-disk' },
    storages: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { enum: FULL_DISK_STORAGES },
      description:
        "Which storage fills: the journal's folder, the target's file, or (server) the data directory of the cell's own target server with the journal on it (a server engine's route). Default the journal and the target.",
    },
  },
} as const;

const journalCorruptionFault = {
  type: 'object',
  description:
    "A damaged journal: at every transition point of a clean run the first attempt is SIGKILLed, then the journal is damaged (seeded: an embedded file journal's bytes of a row page, a bit of the header, or a truncation; a server journal's row with one field changed behind the journal's back) and a retry runs. Never a second mutation; exit 19 JOURNAL_CORRUPT whenever the damage reaches what the run reads, otherwise a normal outcome; never 10, 22 or 29. Then the journal is restored from the backup taken before the damage and one more run must complete the operation. UNVERIFIED where the route's journal is not of that kind.",
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'journal-corruption' },
    shapes: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { enum: JOURNAL_DAMAGE_SHAPES },
      description:
        "Damage shapes: rows (bytes of a row page), header (a bit of the 100-byte header), truncation; fields (a server journal's entry or history row with one field changed by the server's superuser). Default rows, header and truncation.",
    },
  },
} as const;

const readOnlyDiskFault = {
  type: 'object',
  description:
    "A read-only file system under the embedded file journal or the embedded file target: the storage lives on a tmpfs. At every transition point of a clean run the first attempt is SIGKILLed there, the tmpfs is remounted read-only (the kernel refuses it while a file on it is open for writing, so between attempts) and the next attempt runs: it must exit 31 PERMISSION_DENIED naming the file, the cause (EROFS) and how to lift it (or complete, when it needed no write there), change none of the target's rows and leave no lease of its own; remounted read-write, one retry must land exactly one mutation. UNVERIFIED where a tmpfs cannot be mounted (not root) or the route's journal or target is not of that kind.",
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'read-only-disk' },
    storages: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { enum: READ_ONLY_DISK_STORAGES },
      description: "Which storage goes read-only: the journal's folder, the target's file. Default both.",
    },
  },
} as const;

const serverKillFault = {
  type: 'object',
  description:
    "Stop a server the cell owns (SIGKILL or SIGTERM) at the route's kill points and start it again: the target around the commit (a staging target also right after the swap and after the run), the journal before the intent and around COMMITTING.",
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'server-kill' },
    servers: {
      type: 'array',
      minItems: 1,
      items: { enum: ['target', 'journal'] },
      description: 'Servers to kill. Default both.',
    },
    points: {
      type: 'array',
      minItems: 1,
      items: { type: 'string', pattern: pointPattern },
      description: "Only the route's kills at these fault points. Default all of them.",
    },
    signals: {
      type: 'array',
      minItems: 1,
      items: { enum: ['SIGKILL', 'SIGTERM'] },
      description:
        "Stop each server with these signals (SIGTERM: a clean shutdown). Default each kill's own.",
    },
    second_operation: {
      type: 'boolean',
      description:
        'Also, at each target kill point of the swap and settle (SIGKILL), a second operation (another id, the same partition and rows) runs to its end while the first is parked there, then the server restarts and both finish: one generation, each landed once.',
    },
  },
} as const;

const recoveryFault = {
  type: 'object',
  description:
    'Operator recovery (harness/faults/recovery-fault.ts): SIGKILL `recovery target-commit apply` at each of its fault points, two applies racing, and applies after the entry changed.',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'recovery' },
    from: {
      type: 'array',
      minItems: 1,
      items: { enum: ['target-committed', 'commit-unknown'] },
      description: 'Start states to recover from. Default both.',
    },
  },
} as const;

const distinctLossStates = {
  type: 'boolean',
  description:
    'One cell per distinct durable state a kill at a transition point leaves (equal states share a cell; the evidence lists the points as equivalent_points). Default true; false: one cell per point.',
} as const;

const journalLossFault = {
  type: 'object',
  description:
    'At every transition point of a clean run the journal is lost, then retries run: wipe (emptied in place), delete (with the state folder), rollback (restored to its own backup from one transition earlier), fork (a second deployment with its own, empty journal runs while the first is parked, then the first is released), wal-loss (an embedded file journal: -wal/-shm deleted under a parked worker, a second worker runs, the first is released). The target may hold only the mutation its fence proves.',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'journal-loss' },
    modes: {
      type: 'array',
      minItems: 1,
      items: { enum: ['wipe', 'delete', 'rollback', 'fork', 'wal-loss'] },
      description:
        'Loss modes to run. Default: every mode the route supports; a mode it lacks is UNVERIFIED.',
    },
    distinct_states: distinctLossStates,
  },
} as const;

const fenceLossFault = {
  type: 'object',
  description:
    "At every transition point after the fence exists, the target's fence table is lost between two attempts: drop, rename, move (the retry's search_path names another schema) or move-temp (pg_temp). Then retries run.",
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'fence-loss' },
    modes: {
      type: 'array',
      minItems: 1,
      items: { enum: ['drop', 'rename', 'move', 'move-temp'] },
      description:
        'Loss modes to run. Default: every mode the route supports; a mode it lacks is UNVERIFIED.',
    },
    distinct_states: distinctLossStates,
  },
} as const;

/** THE scenario definition. schemas/scenario.v1.json is generated from it (`npm run schema`). */
export const SCENARIO_SCHEMA = {
  type: 'object',
  description: 'A dpone certification scenario: a route, a workload, its faults, its checks and a seed.',
  additionalProperties: false,
  required: ['name', 'faults'],
  properties: {
    name: {
      type: 'string',
      pattern: '^[a-z0-9][a-z0-9-]*$',
      description: 'Stable name; prefixes every cell id.',
    },
    description: { type: 'string' },
    route: {
      type: 'string',
      pattern: '^[a-z0-9-]+$',
      description:
        "Route id, SOURCE-to-TARGET, or an engine's alias; default the embedded engine's route; --route overrides.",
    },
    seed: {
      type: 'integer',
      minimum: 0,
      maximum: 4294967295,
      description: 'Seed of random choices (default 42); --seed overrides.',
    },
    workload: {
      type: 'object',
      description: 'Options of the generated workload template.',
      additionalProperties: false,
      properties: {
        rows: {
          type: 'integer',
          minimum: 0,
          maximum: 10000000,
          description:
            'Source rows in the partition: the partition size (0: an empty partition; the workload then allows it). Default 20. scenarios/large uses 10,000 (full suite), scenarios/huge 1,000,000 (suite huge).',
        },
        strategy: { enum: ['append', 'replace-partition'], description: 'Load strategy. Default append.' },
        pooler: {
          enum: ['session', 'transaction'],
          description:
            "The PgBouncer lane: every connection of the cell's workers (source, target, journal) to the server engine that offers it goes through a PgBouncer in this pool mode, started by the harness in front of the run's server (with ignore_startup_parameters, as teams configure it), while the role keeps its odd session settings. Cells are planned only on routes with a part of that engine; without pgbouncer they are UNVERIFIED.",
        },
        fence: {
          enum: ['none'],
          description:
            "none: the target is written without a fence (target.fence: none, capability none): every run that began the mutation ends COMMIT_UNKNOWN, and after the cell's workers the harness acts as the operator (recovery apply resolve-unknown with the outcome the target's own rows show). Absent: the route's certified fence.",
        },
      },
    },
    faults: {
      type: 'array',
      minItems: 1,
      items: {
        oneOf: [
          crashFault,
          pauseFault,
          raceFault,
          intentConflictFault,
          airflowRetryFault,
          recoveryFault,
          networkFault,
          lostAckFault,
          serverKillFault,
          journalLossFault,
          fenceLossFault,
          airflowLiveFault,
          stallFault,
          lostCommitFault,
          clockSkewFault,
          statementFault,
          referenceFault,
          shadowFault,
          powerLossFault,
          fullDiskFault,
          journalCorruptionFault,
          readOnlyDiskFault,
        ],
      },
    },
    checks: {
      type: 'array',
      minItems: 1,
      items: { type: 'string', pattern: '^[a-z][a-z0-9-]*$' },
      description: 'Checker names to run. Default: all.',
    },
    variants: {
      type: 'boolean',
      description:
        'Also run this scenario against the unsafe variants (sensitivity). Default true; each fault kind picks its subset.',
    },
  },
} as const;

export type Scenario = FromSchema<typeof SCENARIO_SCHEMA>;
export type FaultSpec = Scenario['faults'][number];
export type FaultKind = FaultSpec['kind'];
export type FaultSpecOf<K extends FaultKind> = Extract<FaultSpec, { kind: K }>;

/** A loaded scenario with the file it came from. */
export interface LoadedScenario {
  readonly file: string;
  readonly scenario: Scenario;
}
