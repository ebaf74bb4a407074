import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { FenceEvidence, FenceRef, PrepareFenceMode } from '../../src/ports/connector.ts';
import type { FenceLog } from './clickhouse-fence.ts';
import { appendFenceEvent, fenced, readFenceLog, soleHolder } from './clickhouse-fence.ts';
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
 * The generation check's refusals before anything is staged (nothing written), like the marker
 * fence's guard: no log → DIVERGED, another intent → INTENT_CONFLICT, another epoch or holder →
 * FENCED. The caller's own epoch, already committed, passes: the caller then answers
 * `applied: false` from the fence.
 */
export function checkGeneration(log: FenceLog, fence: FenceRef): void {
  const { operationId } = fence;
  if (log.maxEpoch === null) {
    throw new DponeError(
      ERROR_CODES.DIVERGED,
      'the ClickHouse target holds no fence log for this operation where this run looks; nothing was written',
      { operationId },
    );
  }
  if (log.intentDigest !== fence.intentDigest) {
    throw new DponeError(
      ERROR_CODES.INTENT_CONFLICT,
      'the ClickHouse fence log holds another intent digest for this operation id; nothing was written',
      { operationId },
    );
  }
  if (!holds(log, fence)) {
    const holder = soleHolder(log, log.maxEpoch) === null ? 'ambiguous' : 'another';
    throw fenced(
      operationId,
      `the target fence holds epoch ${log.maxEpoch} (holder ${holder}), not ${fence.epoch} of this holder; nothing was written`,
    );
  }
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
