import type { TargetFlaws } from '../../../ports/unsafe-variants.ts';
import { unsafeVariantFlaws } from '../../../ports/unsafe-variants.ts';
import type { MarkerDialect } from './marker-dialect.ts';
import { installFence, markCommitted, readFence } from './marker-fence.ts';
import type { MarkerProtocol, MarkerTargetOptions } from './marker-target.ts';
import { MarkerTarget } from './marker-target.ts';

/**
 * DELIBERATELY BROKEN marker protocols for the harness's sensitivity check: each must make a
 * certification FAIL. A connector reaches them only with DPONE_HARNESS=1 (see its
 * `*-unsafe-variants.ts`); the certified target never takes a protocol from here.
 */
export function flawedProtocol(flaws: TargetFlaws): MarkerProtocol {
  const checkEpoch = !flaws.ignoreEpoch;
  const mark: MarkerProtocol['guard'] = (tx, dialect, fence, rows, nowMs) =>
    markCommitted(tx, dialect.sql, fence, rows, nowMs, checkEpoch);
  return {
    prepare: async (dialect, fence, nowMs) =>
      flaws.noFence
        ? { epoch: fence.epoch, status: 'not-committed' }
        : installFence(dialect, fence, nowMs, checkEpoch),
    guard: flaws.noFence || flaws.splitMarker ? async () => undefined : mark,
    ...(flaws.splitMarker && !flaws.noFence
      ? {
          // The marker in a transaction of its own, after the data's COMMIT returned.
          afterCommit: (dialect: MarkerDialect, fence, rows, nowMs) =>
            mark({ run: (sql, params) => dialect.batch([sql], params) }, dialect, fence, rows, nowMs),
        }
      : {}),
    query: async (dialect, operationId) => {
      if (flaws.noFence)
        return { status: 'not-committed', epoch: null, committedEpoch: null, rowsWritten: null };
      const answer = await readFence(dialect, operationId);
      if (flaws.queryLies && answer.status === 'committed') {
        return { status: 'not-committed', epoch: answer.epoch, committedEpoch: null, rowsWritten: null };
      }
      return answer;
    },
  };
}

/**
 * The named variant over the dialect `open` gives. An unknown name is bad input naming
 * DPONE_UNSAFE_VARIANT, refused before anything is opened.
 */
export async function unsafeMarkerTarget(
  name: string,
  open: () => Promise<MarkerDialect>,
  options: MarkerTargetOptions,
): Promise<MarkerTarget> {
  const protocol = flawedProtocol(unsafeVariantFlaws(name));
  return new MarkerTarget(await open(), options, protocol);
}
