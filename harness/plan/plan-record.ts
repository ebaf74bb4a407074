import { createHash } from 'node:crypto';
import { canonicalJson } from '../evidence/evidence-digest.ts';
import type { LoadedScenario } from '../scenario/scenario-schema.ts';
import type { RecordedKill, ReferenceFailure, TraceBook } from './trace.ts';
import { occurrenceKey, parseOccurrence } from './trace.ts';

/**
 * What a run planned its cells from, stored in the evidence (`plan`) so that `certify merge` and
 * `certify gate` can plan again themselves — from the scenario files on disk, the seed and these
 * recorded traces — and refuse evidence whose cells are not exactly that plan (a shard or run that
 * silently skipped cells, or ran extra ones).
 */
export interface PlanRecord {
  /** `--seed` when it overrode every scenario's own seed, else null. */
  readonly seed_override: number | null;
  /** Each scenario file the run loaded, with a digest of its parsed content. */
  readonly scenarios: readonly PlannedScenario[];
  /** The recorded traces the cells were enumerated from, by trace key (see traceKey). */
  readonly traces: Readonly<Record<string, StoredTraceBook>>;
  /** planDigest over every planned cell id (all shards, variants included). */
  readonly digest: string;
  /** How many cells the whole plan has. */
  readonly cells: number;
}

export interface PlannedScenario {
  readonly name: string;
  /** As given, relative to the working folder of the run. */
  readonly file: string;
  /** sha256 over the canonical JSON of the parsed scenario: comments and layout do not count. */
  readonly sha256: string;
}

/** A TraceBook as data: occurrences as `point#hit`, and the durable-state digest of each kill. */
export interface StoredTraceBook {
  readonly clean: readonly string[];
  /** The clean run with its statement points in place (TraceBook.statements), when recorded. */
  readonly statements?: readonly string[];
  readonly recovery: Readonly<Record<string, readonly string[]>>;
  readonly fingerprints: Readonly<Record<string, string>>;
  /** How the reference run ended when it did not end cleanly (TraceBook.referenceFailure). */
  readonly reference_failure?: ReferenceFailure;
}

export function scenarioDigest(scenario: LoadedScenario['scenario']): string {
  return `sha256:${createHash('sha256').update(canonicalJson(scenario)).digest('hex')}`;
}

export function storeTraceBook(book: TraceBook): StoredTraceBook {
  const fingerprints: Record<string, string> = {};
  for (const [key, kill] of book.snapshots ?? [])
    if (kill.fingerprint !== undefined) fingerprints[key] = kill.fingerprint;
  return {
    clean: book.clean.map(occurrenceKey),
    ...(book.statements ? { statements: book.statements.map(occurrenceKey) } : {}),
    recovery: Object.fromEntries([...book.recovery].map(([key, trace]) => [key, trace.map(occurrenceKey)])),
    fingerprints,
    ...(book.referenceFailure ? { reference_failure: book.referenceFailure } : {}),
  };
}

/**
 * The TraceBook a stored one plans like: the same occurrences and fingerprints. Its kills hold no
 * durable state (nothing to restore from), so it plans cells but cannot run them.
 */
export function traceBookFrom(stored: StoredTraceBook): TraceBook {
  const snapshots = new Map<string, RecordedKill>();
  for (const [key, fingerprint] of Object.entries(stored.fingerprints))
    snapshots.set(key, {
      dir: '',
      first: { pid: 0, exit_code: null, signal: null, duration_ms: 0, last_point: null, role: 'stored' },
      fingerprint,
    });
  return {
    clean: stored.clean.map(parseOccurrence),
    ...(stored.statements ? { statements: stored.statements.map(parseOccurrence) } : {}),
    recovery: new Map(
      Object.entries(stored.recovery).map(([key, trace]) => [key, trace.map(parseOccurrence)]),
    ),
    cleanDurationMs: 0,
    ...(snapshots.size > 0 ? { snapshots } : {}),
    ...(stored.reference_failure ? { referenceFailure: stored.reference_failure } : {}),
  };
}

/** Cell ids the evidence holds that the plan lacks, and planned ids the evidence lacks. */
export function compareCells(
  present: readonly string[],
  planned: readonly string[],
): { missing: string[]; extra: string[] } {
  const have = new Set(present);
  const want = new Set(planned);
  return {
    missing: planned.filter((id) => !have.has(id)).sort(),
    extra: present.filter((id) => !want.has(id)).sort(),
  };
}
