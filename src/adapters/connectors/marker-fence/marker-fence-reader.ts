import { isDponeError } from '../../../contracts/errors.ts';
import type { FenceAnswer, FenceEvidence, FenceRef, PrepareFenceMode } from '../../../ports/connector.ts';
import type { MarkerDialect } from './marker-dialect.ts';
import { fenceUnavailable, installFence, readFence } from './marker-fence.ts';

/** Reads a target's fence and nothing else (recovery inspect, plan and apply). */
export interface FenceReader extends AsyncDisposable {
  /** committed / not-committed / unknown, as TargetConnector.queryFence; FENCE_UNAVAILABLE when unreachable. */
  queryFence(operationId: string): Promise<FenceAnswer>;
  close(): Promise<void>;
}

/**
 * A fence reader over a dialect that only reads: it sends the fence SELECT and nothing else (no
 * DDL, no fence row, no write), so inspecting a target cannot change it.
 */
export function markerFenceReader(
  dialect: Pick<MarkerDialect, 'label' | 'read' | 'sql' | 'close'>,
): FenceReader {
  return {
    async queryFence(operationId: string): Promise<FenceAnswer> {
      try {
        return await readFence(dialect, operationId);
      } catch (error) {
        if (isDponeError(error)) throw error;
        throw fenceUnavailable(dialect.label, operationId, error);
      }
    },
    close: () => dialect.close(),
    [Symbol.asyncDispose]: () => dialect.close(),
  };
}

/** A fence reader that may also raise the fence's epoch (recovery apply fences first). */
export interface FenceRaiser extends FenceReader {
  prepareFence(fence: FenceRef, mode: PrepareFenceMode): Promise<FenceEvidence>;
}

/**
 * A fence reader that can also raise the epoch, never creating anything: the fence statements
 * only (no DDL, no target table), so an operator's apply changes at most the fence row's epoch.
 */
export function markerFenceRaiser(dialect: MarkerDialect): FenceRaiser {
  return {
    ...markerFenceReader(dialect),
    async prepareFence(fence: FenceRef, mode: PrepareFenceMode): Promise<FenceEvidence> {
      try {
        return await installFence(dialect, fence, { ...mode, create: false }, Date.now());
      } catch (error) {
        if (isDponeError(error)) throw error;
        throw fenceUnavailable(dialect.label, fence.operationId, error);
      }
    },
  };
}
