import { isDponeError } from '../../../contracts/errors.ts';
import type { FenceAnswer } from '../../../ports/connector.ts';
import type { MarkerDialect } from './marker-dialect.ts';
import { fenceUnavailable, readFence } from './marker-fence.ts';

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
