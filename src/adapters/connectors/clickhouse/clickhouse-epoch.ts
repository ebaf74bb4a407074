import type { DponeError } from '../../../contracts/errors.ts';
import type { FenceRef } from '../../../ports/connector.ts';
import type { FenceLog } from './clickhouse-fence.ts';
import { appendFenceEvent, fenced, readFenceLog } from './clickhouse-fence.ts';
import type { FenceSite } from './clickhouse-reading.ts';
import { dropStaging, listStaging, sealStaging } from './clickhouse-staging.ts';

/** FENCED: the fence holds another epoch than the caller's; nothing was written. */
export function staleEpoch(fence: FenceRef, held: number | null): DponeError {
  return fenced(
    fence.operationId,
    held === null
      ? `the target fence holds no epoch; epoch ${fence.epoch} was never installed`
      : `the target fence holds epoch ${held}, not ${fence.epoch}; nothing was written`,
  );
}

/**
 * Logs `epoch(E)` unless the log already holds a newer epoch, and re-reads: of two holders racing
 * to install epochs, the newer one wins and the older one is FENCED here. Returns the log read after.
 */
export async function installEpoch(site: FenceSite, fence: FenceRef): Promise<FenceLog> {
  const before = await readFenceLog(site.sql, fence.operationId);
  if (before.maxEpoch !== null && before.maxEpoch > fence.epoch) throw staleEpoch(fence, before.maxEpoch);
  await appendFenceEvent(site.sql, fence.operationId, fence.epoch, 'epoch', 0);
  const log = await readFenceLog(site.sql, fence.operationId);
  if (log.maxEpoch !== null && log.maxEpoch > fence.epoch) throw staleEpoch(fence, log.maxEpoch);
  return log;
}

/**
 * SEALS every older epoch's staging name (drop + tombstone: see clickhouse-staging.ts), so no
 * older holder can attach after this returns, and drops a leftover staging table of this very
 * epoch (a dead predecessor with the same holder and epoch). After it, the fence's answer for the
 * older epochs cannot change any more.
 */
export async function sealOlderEpochs(site: FenceSite, fence: FenceRef, log: FenceLog): Promise<void> {
  const { operationId, epoch } = fence;
  const staging = await listStaging(site.sql, site.database, operationId);
  const stale = new Set([...log.epochs, ...staging.map((t) => t.epoch)].filter((e) => e < epoch));
  for (const old of [...stale].sort((a, b) => a - b)) {
    await sealStaging(site.sql, site.database, operationId, old);
  }
  if (staging.some((t) => t.epoch === epoch && !t.sealed)) {
    await dropStaging(site.sql, site.database, operationId, epoch);
  }
}
