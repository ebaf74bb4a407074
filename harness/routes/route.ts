import type { TargetCommitJournalPort } from '../../src/ports/journal.ts';
import type { TargetInspector } from '../checkers/target-inspector.ts';
import type { StartedEnvironment } from '../env/environment.ts';

/** What the scenario asks of the generated workload. */
export interface CellWorkloadOptions {
  /** Source rows in the loaded partition. */
  readonly rows: number;
  readonly strategy: 'append' | 'replace-partition';
  /** `execution.lease_ttl_ms` of the generated workload (short for pause cells). */
  readonly leaseTtlMs: number;
  /** Seeds the generated row values, so a replayed cell loads the same rows. */
  readonly seed: number;
}

/**
 * One cell's fresh world: its own source, target (with the harness audit installed) and journal.
 * Disposing it closes whatever it holds open (files stay for the evidence directory).
 */
export interface CellFixture extends AsyncDisposable {
  /** Generated workload YAML for this cell. */
  readonly workloadFile: string;
  /** Same identity, different intent digest (for intent-conflict). */
  readonly conflictingWorkloadFile: string;
  /** Passed to workers with --journal. */
  readonly journalUrl: string;
  /** Extra environment for workers (password env vars, proxies...). */
  readonly env: Readonly<Record<string, string>>;
  /** CHECKER's inspector: reads the target and source itself, never through the connector. */
  readonly inspector: TargetInspector;
  /** Opens the cell's journal for reading history after the workers ended; the caller closes it. */
  openJournal(): Promise<TargetCommitJournalPort>;
}

/**
 * A route: how to build a fresh cell for one connector pair. To add one, write
 * harness/routes/<id>-route.ts exporting `route` and add one line to ROUTES below.
 */
export interface Route {
  readonly id: string;
  /** Provider used when --provider is not given. */
  readonly defaultProvider: string;
  /** Connector version the certification covers (src/cli/certifications.ts ROUTE_CONNECTOR_VERSIONS). */
  readonly connectorVersion: string;
  /** Deliberately unsafe target variants (DPONE_UNSAFE_VARIANT) the sensitivity pass must catch. */
  readonly unsafeVariants: readonly string[];
  /**
   * Optional: copies a cell's durable state (source, target, journal, state folder) from one cell
   * folder into another prepared cell, while no worker holds it open. Lets a depth-2 crash cell
   * start from the state a recorded first-attempt kill left, instead of killing a first attempt
   * again. Routes whose state lives on a server leave it out; the cell then runs the first attempt.
   */
  copyCellState?(fromDir: string, toDir: string): Promise<void>;
  /**
   * Optional: a digest of a cell folder's logical durable state (masking holder names and
   * instants). Equal digests after two first-attempt kills mean recovery from them is one test.
   */
  durableFingerprint?(dir: string): Promise<string>;
  /** Builds a fresh cell in `cellDir` (created by the caller, empty). */
  prepareCell(
    cellDir: string,
    options: CellWorkloadOptions,
    environment: StartedEnvironment,
  ): Promise<CellFixture>;
}

/** The registry, keyed by route id; each entry loads its module only when asked. */
export const ROUTES: Readonly<Record<string, () => Promise<Route>>> = {
  sqlite: async () => (await import('./sqlite-route.ts')).route,
  postgres: async () => (await import('./postgres-route.ts')).route,
};

export function routeIds(): readonly string[] {
  return Object.keys(ROUTES).sort();
}
