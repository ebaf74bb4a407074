import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { workloadText } from './workload-text.ts';
import { invalidInput } from '../../src/contracts/errors.ts';
import type { TargetCommitJournalPort } from '../../src/ports/journal.ts';
import type { TargetInspector } from '../inspectors/target-inspector.ts';
import type { Dataset } from '../data/dataset.ts';
import { lateRows } from '../data/dataset.ts';
import type { StartedEnvironment } from '../env/environment.ts';
import type { StorageSeal } from './storage-seal.ts';
import { cellWorkload } from './cell-workload.ts';
import { sealParts } from './part-seal.ts';
import type {
  JournalPart,
  PartCell,
  PreparedJournal,
  PreparedSource,
  PreparedTarget,
  SourcePart,
  TargetPart,
} from './parts.ts';
import type { IsolateOptions, ServerControl } from './server-control.ts';
import type {
  CellFixture,
  CellNetwork,
  CellWorkloadOptions,
  FenceOperations,
  FileImage,
  JournalFileOperations,
  JournalOperations,
  ProxiedConnection,
} from './route.ts';

/** The three parts of a route and its id, as the composer hands them to a cell. */
export interface RouteParts {
  readonly id: string;
  readonly source: SourcePart;
  readonly target: TargetPart;
  readonly journal: JournalPart;
}

function cellTag(dir: string): string {
  const hash = createHash('sha256').update(`${dir}\u0000${Date.now()}\u0000${Math.random()}`).digest('hex');
  return `c_${hash.slice(0, 16)}`;
}

/**
 * One composed cell: a prepared source, target and journal, the workload files naming them, and
 * what the faults need (network proxies, server isolation, late source rows). Fields are getters:
 * after `isolateServers()` the target and journal are new, and workers started afterwards see them.
 */
export class ComposedCell implements CellFixture {
  readonly #parts: RouteParts;
  readonly #cell: PartCell;
  readonly #source: PreparedSource;
  #target: PreparedTarget;
  #journal: PreparedJournal;
  readonly journalOps: JournalOperations;

  private constructor(parts: RouteParts, cell: PartCell, prepared: Prepared) {
    this.#parts = parts;
    this.#cell = cell;
    this.#source = prepared.source;
    this.#target = prepared.target;
    this.#journal = prepared.journal;
    // Loss operations are bound once, but always act on the journal the cell holds now.
    const ops = (): JournalOperations => this.#journal.ops;
    this.journalOps = {
      wipe: ops().wipe && (() => ops().wipe!()),
      delete: ops().delete && (() => ops().delete!()),
      backup: ops().backup && (() => ops().backup!()),
      restore: ops().restore && ((backup) => ops().restore!(backup)),
      forkUrl: ops().forkUrl && (() => ops().forkUrl!()),
      dropWal: ops().dropWal && (() => ops().dropWal!()),
      digest: ops().digest && (() => ops().digest!()),
      tamper: ops().tamper && ((seed) => ops().tamper!(seed)),
    };
  }

  static async create(
    parts: RouteParts,
    dir: string,
    options: CellWorkloadOptions,
    environment: StartedEnvironment,
    dataset: Dataset,
  ): Promise<ComposedCell> {
    if (options.fence === 'none' && !parts.target.plainWrites)
      throw invalidInput(
        `route ${parts.id}: its ${parts.target.engine} target cannot be written without a fence (workload.fence: none)`,
        { field: 'workload.fence' },
      );
    const cell: PartCell = { dir, tag: cellTag(dir), options, dataset, environment, dedicated: false };
    const prepared = await prepareAll(parts, cell);
    const composed = new ComposedCell(parts, cell, prepared);
    await composed.#writeWorkloads();
    return composed;
  }

  get workloadFile(): string {
    return join(this.#cell.dir, 'workload.yaml');
  }
  get conflictingWorkloadFile(): string {
    return join(this.#cell.dir, 'workload-conflicting.yaml');
  }
  get secondOperationWorkloadFile(): string {
    return join(this.#cell.dir, 'workload-second-operation.yaml');
  }
  get journalUrl(): string {
    return this.#journal.url;
  }
  get env(): Readonly<Record<string, string>> {
    return { ...this.#source.env, ...this.#target.env, ...this.#journal.env };
  }
  get inspector(): TargetInspector {
    return this.#target.inspector;
  }
  get journalFile(): JournalFileOperations | undefined {
    return this.#journal.file;
  }
  /** The target part's one file in the cell folder, when it keeps its state in exactly one. */
  get targetFile(): string | undefined {
    const files = this.#parts.target.files ?? [];
    return files.length === 1 ? join(this.#cell.dir, files[0]!) : undefined;
  }
  get targetImage(): FileImage | undefined {
    return this.#parts.target.fileImage;
  }
  get fenceOps(): FenceOperations | undefined {
    const ops = this.#target.fenceOps;
    const moved = this.#target.movedOutOfView;
    if (!ops || !moved) return ops;
    return { ...ops, moveOutOfView: (view) => this.#writeMoved(view, moved) };
  }
  get network(): CellNetwork | undefined {
    const toxiproxy = this.#cell.environment.services.toxiproxy;
    const proxies: Partial<Record<ProxiedConnection, string>> = {};
    if (this.#target.proxy) proxies.target = this.#target.proxy.name;
    if (this.#journal.proxy) proxies.journal = this.#journal.proxy.name;
    return toxiproxy && Object.keys(proxies).length > 0 ? { apiUrl: toxiproxy.apiUrl, proxies } : undefined;
  }

  /** Seals source and target (with the fence) when both parts can; absent: intent-conflict cells are UNVERIFIED. */
  get sealStorage(): ((workloadFile: string) => Promise<StorageSeal>) | undefined {
    const source = this.#source;
    const target = this.#target;
    if (!source.seal || !target.seal) return undefined;
    const parts = { source: { seal: () => source.seal!() }, target: { seal: () => target.seal!() } };
    return (workloadFile) => sealParts(this.#cell.dir, workloadFile, parts);
  }

  openJournal(): Promise<TargetCommitJournalPort> {
    return this.#journal.open();
  }

  async addSourceRows(count: number): Promise<void> {
    await this.#source.addRows(lateRows(this.#cell.dataset, count, this.#cell.options.seed));
  }

  /** A digest of the durable state of all three parts (each read where it lives). */
  async fingerprint(): Promise<string> {
    const parts = [this.#source, this.#target, this.#journal];
    const digests: string[] = [];
    for (const part of parts) digests.push(part.fingerprint ? await part.fingerprint() : 'static');
    return `sha256:${createHash('sha256').update(digests.join('\n')).digest('hex')}`;
  }

  async isolateServers(
    options: IsolateOptions = {},
  ): Promise<Readonly<Partial<Record<ProxiedConnection, ServerControl>>>> {
    await this.#target[Symbol.asyncDispose]();
    await this.#journal[Symbol.asyncDispose]();
    const dedicated: PartCell = {
      ...this.#cell,
      dedicated: true,
      ...(options.powerLoss ? { powerLoss: options.powerLoss } : {}),
      ...(options.fullDisk ? { fullDisk: true } : {}),
    };
    this.#target = await this.#parts.target.prepare(dedicated, this.#source);
    this.#journal = await this.#parts.journal.prepare(dedicated);
    await this.#writeWorkloads();
    return {
      ...(this.#target.server ? { target: this.#target.server } : {}),
      ...(this.#journal.server ? { journal: this.#journal.server } : {}),
    };
  }

  #document(schemaFingerprint: string, target = this.#target.workload, releaseId?: string) {
    return cellWorkload(
      { id: this.#parts.id, target: this.#parts.target.engine },
      this.#cell.dataset,
      this.#cell.options,
      { source: this.#source.workload, target, journal: this.#journal.url },
      schemaFingerprint,
      releaseId,
    );
  }

  async #writeWorkloads(): Promise<void> {
    await writeFile(this.workloadFile, workloadText(this.#document('schema-v1')));
    await writeFile(this.conflictingWorkloadFile, workloadText(this.#document('schema-v2')));
    await writeFile(
      this.secondOperationWorkloadFile,
      workloadText(this.#document('schema-v1', this.#target.workload, 'cert-release-2')),
    );
  }

  async #writeMoved(
    view: 'schema' | 'temp',
    moved: NonNullable<PreparedTarget['movedOutOfView']>,
  ): Promise<string> {
    const file = join(this.#cell.dir, `workload-fence-${view}.yaml`);
    await writeFile(file, workloadText(this.#document('schema-v1', await moved(view))));
    return file;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const part of [this.#journal, this.#target, this.#source])
      await Promise.resolve(part[Symbol.asyncDispose]()).catch(() => undefined);
  }
}

interface Prepared {
  readonly source: PreparedSource;
  readonly target: PreparedTarget;
  readonly journal: PreparedJournal;
}

/** Prepares source, then target (its inspector reads the source), then journal; undoes what it made on failure. */
async function prepareAll(parts: RouteParts, cell: PartCell): Promise<Prepared> {
  const made: AsyncDisposable[] = [];
  try {
    const source = await parts.source.prepare(cell);
    made.push(source);
    const target = await parts.target.prepare(cell, source);
    made.push(target);
    const journal = await parts.journal.prepare(cell);
    return { source, target, journal };
  } catch (error) {
    for (const part of made.reverse())
      await Promise.resolve(part[Symbol.asyncDispose]()).catch(() => undefined);
    throw error;
  }
}
