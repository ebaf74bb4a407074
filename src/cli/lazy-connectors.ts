import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type {
  FenceAnswer,
  FenceCapabilityKind,
  FenceEvidence,
  FenceRef,
  MutationReceipt,
  PrepareFenceMode,
  MutationRequest,
  RowStream,
  SourceConnector,
  SourceReadRequest,
  TargetConnector,
} from '../ports/connector.ts';
import type { RouteConnectors } from './route-connectors.ts';

/**
 * A route's source and target that connect on first use. The executor reads the journal before any
 * connector call, so with these an intent conflict, a COMPLETE operation or an unreachable journal
 * ends the run without a single byte sent to the source or the target (not even a connection).
 */
export class LazyConnectors implements AsyncDisposable {
  readonly source: SourceConnector;
  readonly target: TargetConnector;
  readonly #open: () => Promise<RouteConnectors>;
  #opened: Promise<RouteConnectors> | null = null;
  #closed = false;

  constructor(
    names: { source: string; target: string; capability: FenceCapabilityKind; fenceLocation: string },
    open: () => Promise<RouteConnectors>,
  ) {
    this.#open = open;
    const connectors = () => this.#connect();
    this.source = {
      identity: names.source,
      read: async (request: SourceReadRequest): Promise<RowStream> =>
        (await connectors()).source.read(request),
      close: () => this.close(),
      [Symbol.asyncDispose]: () => this.close(),
    };
    this.target = {
      identity: names.target,
      capability: names.capability,
      fenceLocation: names.fenceLocation,
      prepareFence: async (fence: FenceRef, mode: PrepareFenceMode): Promise<FenceEvidence> =>
        (await connectors()).target.prepareFence(fence, mode),
      mutate: async (request: MutationRequest): Promise<MutationReceipt> =>
        (await connectors()).target.mutate(request),
      queryFence: async (operationId: string): Promise<FenceAnswer> =>
        (await connectors()).target.queryFence(operationId),
      close: () => this.close(),
      [Symbol.asyncDispose]: () => this.close(),
    };
  }

  /** Whether any connector call has connected (tests and evidence use it). */
  get connected(): boolean {
    return this.#opened !== null;
  }

  #connect(): Promise<RouteConnectors> {
    if (this.#closed) {
      return Promise.reject(new DponeError(ERROR_CODES.INTERNAL, 'a connector was used after it was closed'));
    }
    this.#opened ??= this.#open();
    return this.#opened;
  }

  /** Closes what was opened; a close failure is not allowed to replace the run's outcome. */
  async close(): Promise<void> {
    const opened = this.#opened;
    if (this.#closed) return;
    this.#closed = true;
    if (opened === null) return;
    const connectors = await opened.catch(() => null);
    if (!connectors) return;
    await Promise.allSettled([connectors.source.close(), connectors.target.close()]);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
