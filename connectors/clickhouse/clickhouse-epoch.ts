import { refuseUnwritten } from '../../src/adapters/connectors/marker-fence/marker-fence.ts';
import type { FenceEvidence, FenceRef, PrepareFenceMode } from '../../src/ports/connector.ts';
import type { FenceLog } from './clickhouse-fence.ts';
import { appendFenceEvent, readFenceLog, soleHolder } from './clickhouse-fence.ts';
import type { FenceSite } from './clickhouse-reading.ts';
import { readFence, settledAnswer } from './clickhouse-reading.ts';
import { createFenceLog } from './clickhouse-rows.ts';
import { dropStaging, listStaging, sealStaging } from './clickhouse-staging.ts';

/** The log belongs to the caller's intent and holds no newer epoch, and no other holder of its own. */
export function mayInstall(log: FenceLog, fence: FenceRef): boolean {
  if (log.intentDigest !== null && log.intentDigest !== fence.intentDigest) return false;
  if (log.maxEpoch === null || log.maxEpoch < fence.epoch) return true;
  return (
    log.maxEpoch === fence.epoch && [...(log.holders.get(fence.epoch) ?? [])].every((h) => h === fence.holder)
  );
}

/** The log holds exactly the caller's epoch, installed by the caller alone, for its intent. */
export function holds(log: FenceLog, fence: FenceRef): boolean {
  return (
    log.maxEpoch === fence.epoch &&
    soleHolder(log, fence.epoch) === fence.holder &&
    log.intentDigest === fence.intentDigest
  );
}

/**
 * The generation check's refusals before anything is staged (nothing written), the marker fence's
 * guard's (refuseUnwritten): no log → DIVERGED, another intent → INTENT_CONFLICT, another epoch or
 * holder → FENCED. The caller's own epoch, already committed, passes: the caller then answers
 * `applied: false` from the fence.
 */
export function checkGeneration(log: FenceLog, fence: FenceRef): void {
  refuseUnwritten(fence, { epoch: log.maxEpoch, intentDigest: log.intentDigest }, holds(log, fence), {
    noFence: 'the ClickHouse target holds no fence log',
    fence: 'the ClickHouse fence log',
    notHeld: (epoch) =>
      `the target fence holds epoch ${epoch} (holder ${soleHolder(log, epoch) === null ? 'ambiguous' : 'another'}), not ${fence.epoch} of this holder`,
  });
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

/** What the fence holds, for a caller that did not install: settled where the intent is the caller's. */
async function currentAnswer(site: FenceSite, fence: FenceRef, log: FenceLog): Promise<FenceEvidence> {
  const answer =
    log.intentDigest === fence.intentDigest
      ? await settledAnswer(site, fence)
      : (await readFence(site, fence.operationId)).answer;
  return { ...answer, installed: false };
}

/** What installEpoch did: installed this epoch (the log read after), or left the fence as it was. */
export type Installation =
  | { readonly installed: true; readonly log: FenceLog }
  | { readonly installed: false; readonly evidence: FenceEvidence };

/**
 * prepareFence up to the seal: never creates the log outside PREPARING (`mode.create`); leaves it
 * as it is when it belongs to another intent, holds a newer epoch, or holds this epoch for another
 * holder (two journals issued it: the caller moves above it); otherwise logs `epoch(E)` with holder
 * and intent and re-reads (a racing newer holder, or a second holder of E, wins: not installed).
 * The caller then seals the older epochs (sealOlderEpochs) and answers.
 */
export async function installEpoch(
  site: FenceSite,
  fence: FenceRef,
  mode: PrepareFenceMode,
): Promise<Installation> {
  const before = await readFenceLog(site.sql, fence.operationId);
  if ((before.maxEpoch === null && !mode.create) || !mayInstall(before, fence)) {
    return { installed: false, evidence: await currentAnswer(site, fence, before) };
  }
  if (before.maxEpoch === null) await createFenceLog(site.sql);
  await appendFenceEvent(site.sql, fence, 'epoch', 0);
  const log = await readFenceLog(site.sql, fence.operationId);
  if (!holds(log, fence)) return { installed: false, evidence: await currentAnswer(site, fence, log) };
  return { installed: true, log };
}
