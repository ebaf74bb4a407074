import { createHash } from 'node:crypto';
import { canonicalJson } from '../evidence/canonical-json.ts';
import type { StoredTraceBook } from '../evidence/plan-types.ts';
import type { LoadedScenario } from '../scenario/scenario-schema.ts';
import type { RecordedKill, TraceBook } from './trace.ts';
import { occurrenceKey, parseOccurrence } from './trace.ts';

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
