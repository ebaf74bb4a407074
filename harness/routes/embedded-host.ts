import type { TargetCommitJournalPort } from '../../src/ports/journal.ts';
import type { CellScalar } from '../checkers/target-snapshot.ts';
import type { SourceRows } from '../inspectors/source-rows.ts';
import type { PartSeal } from './parts.ts';
import type { JournalLossMode, JournalOperations } from './route.ts';
import type { CellTable } from './target-part.ts';

/**
 * What a plug-in route borrows from the embedded engine (the one engine whose journal needs no
 * server, ConnectorPartsEntry.embeddedJournal): a seeded source file and the cell journal, both in
 * the cell folder. Plug-in routes are `<embedded>-to-<plug-in>` (plugin-route.ts); the embedded
 * engine's parts supply this (ConnectorParts.pluginHost), so the host itself names no engine.
 */
export interface EmbeddedHost {
  /** The embedded engine, as in route ids: the source every plug-in route declares. */
  readonly engine: string;
  /** Its name as messages show it. */
  readonly label: string;
  readonly source: EmbeddedSource;
  readonly journal: EmbeddedJournal;
  /** The database files of an embedded cell (source, target, journal), as its fingerprint dumps them. */
  readonly files: readonly string[];
  /** Whether a name in the cell folder is one of those files or a side file the engine keeps beside one. */
  isDurable(name: string): boolean;
  /** The logical content of one such file: every table, rows sorted (the caller masks it). */
  dumpFile(path: string): string;
}

/** The seeded source file of a plug-in cell. */
export interface EmbeddedSource {
  /** The workload's source URL, relative to the cell folder. */
  readonly url: string;
  /** Creates the source table (the columns' kinds as given) and inserts the rows in one transaction. */
  write(cellDir: string, table: CellTable, rows: Iterable<readonly CellScalar[]>): void;
  /** The harness's own reader of the source's loaded partition. */
  rows(cellDir: string, table: CellTable): SourceRows;
  /** Seals the source file for one attempt (intent-conflict cells). */
  seal(cellDir: string): Promise<PartSeal>;
}

/** The journal file of a plug-in cell. */
export interface EmbeddedJournal {
  /** The journal adapter, as recorded in the evidence. */
  readonly kind: string;
  readonly lossModes: readonly JournalLossMode[];
  /** Workers' `--journal` for a cell folder. */
  url(cellDir: string): string;
  /** Opens the journal for the harness, never creating one a loss fault removed; the caller closes it. */
  open(cellDir: string, url: string): Promise<TargetCommitJournalPort>;
  /** Its loss operations. */
  ops(cellDir: string): JournalOperations;
}
