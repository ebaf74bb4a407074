import type { FenceAnswer, FenceEvidence, FenceRef, RowStream } from '../../../ports/connector.ts';
import type { TargetFlaws } from '../../../ports/unsafe-variants.ts';
import { unsafeVariantFlaws } from '../../../ports/unsafe-variants.ts';
import type { FenceParams, MarkerDialect, SqlRunner } from './marker-dialect.ts';
import type { GuardOutcome } from './marker-fence.ts';
import { fenced, guardCommit, installFence, readFence, toAnswer } from './marker-fence.ts';
import type { MarkerProtocol, MarkerTargetOptions } from './marker-target.ts';
import { twoCommitsDialect } from './marker-two-commits.ts';
import { MarkerTarget } from './marker-target.ts';

/**
 * DELIBERATELY BROKEN marker protocols for the harness's sensitivity check: each offered variant
 * must make a certification FAIL. A connector reaches them only with DPONE_HARNESS=1 (see
 * openMarkerTarget); the certified target never takes a protocol from here.
 */
const hide = <T extends FenceAnswer>(answer: T): T =>
  answer.status === 'committed'
    ? { ...answer, status: 'not-committed', committedEpoch: null, rowsWritten: null }
    : answer;

/** A guard that matches on `statement` alone and refuses with FENCED otherwise (no precise refusal). */
async function bluntGuard(tx: SqlRunner, statement: string, values: FenceParams): Promise<GuardOutcome> {
  const { affected } = await tx.run(statement, values);
  if (affected === 0)
    throw fenced(String(values.operation_id), 'the target fence refused the commit; nothing was written');
  return { applied: true };
}

/** Every value of the stream through `change` on the way: the flaws below that alter values. */
function mapValues(rows: RowStream, change: (value: unknown) => unknown): RowStream {
  return {
    columns: rows.columns,
    ...(rows.numbers ? { numbers: rows.numbers } : {}),
    async *[Symbol.asyncIterator]() {
      for await (const chunk of rows) yield chunk.map((row) => row.map(change) as typeof row);
    },
    close: () => rows.close(),
    [Symbol.asyncDispose]: () => rows.close(),
  };
}

/** Text NFC-normalised on the way: an NFD value (or any other decomposed form) arrives altered. */
const normalisedText = (rows: RowStream): RowStream =>
  mapValues(rows, (value) => (typeof value === 'string' ? value.normalize('NFC') : value));

/** Numeric text, as a connector that parses numbers would take it. */
const NUMERIC_TEXT = /^-?\d+(?:\.\d+)?$/;

/** Numeric text through a JS double (integers beyond 2^53 travel as text): more digits than a double keeps arrive rounded. */
const roundedNumbers = (rows: RowStream): RowStream =>
  mapValues(rows, (value) =>
    (typeof value === 'string' && NUMERIC_TEXT.test(value)) || typeof value === 'bigint'
      ? Number(value)
      : value,
  );

/** A floating-point value with no fraction bound as an integer (a target with storage classes stores one). */
const narrowedReals = (rows: RowStream): RowStream =>
  mapValues(rows, (value) => (typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value));

/** An instant with its zone, as the sources here write it (ISO 8601, or SQL's text form with a space). */
const ZONED_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(Z|[+-]\d{2}(?::?\d{2})?)$/i;
/** The host the flawed connector pretends to run on: UTC-8, with no zone written. */
const HOST_OFFSET_MINUTES = -8 * 60;

/** The instant as the -08:00 wall clock, zone dropped (sub-second digits kept); other text unchanged. */
function hostWallClock(text: string): string {
  const match = ZONED_INSTANT.exec(text);
  if (!match) return text;
  const [, y, mo, d, h, mi, sec, fraction = '', zone] = match;
  const digits = zone!.toUpperCase() === 'Z' ? '+0000' : zone!.replace(':', '').padEnd(5, '0');
  const offset =
    (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5))) * (digits[0] === '-' ? -1 : 1);
  const utc =
    Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)) - offset * 60_000;
  const wall = new Date(utc + HOST_OFFSET_MINUTES * 60_000).toISOString();
  return `${wall.slice(0, 10)} ${wall.slice(11, 19)}${fraction}`;
}

/** Instants with a zone written as a -08:00 host's wall clock without it (the target reads them as UTC). */
const shiftedZones = (rows: RowStream): RowStream =>
  mapValues(rows, (value) => (typeof value === 'string' ? hostWallClock(value) : value));

export function flawedProtocol(flaws: TargetFlaws): MarkerProtocol {
  const guard = (
    tx: SqlRunner,
    dialect: MarkerDialect,
    fence: FenceRef,
    rows: number | null,
    nowMs: number,
  ): Promise<GuardOutcome> => {
    const values = {
      operation_id: fence.operationId,
      epoch: fence.epoch,
      intent_digest: fence.intentDigest,
      rows_written: rows,
      now_ms: nowMs,
    };
    if (flaws.epochOnlyGuard) return bluntGuard(tx, dialect.sql.guardEpochOnly, values);
    if (flaws.ignoreEpoch) return bluntGuard(tx, dialect.sql.guardIgnoringEpoch, values);
    return guardCommit(tx, dialect.sql, fence, rows, nowMs);
  };
  return {
    async prepare(dialect, fence, mode, nowMs): Promise<FenceEvidence> {
      if (flaws.noFence) {
        return {
          installed: true,
          status: 'not-committed',
          epoch: fence.epoch,
          committedEpoch: null,
          rowsWritten: null,
          intentDigest: fence.intentDigest,
          holder: fence.holder,
        };
      }
      const { sql } = dialect;
      const creating = flaws.recreatesLostFence ? { create: true } : mode;
      const insert = creating.create ? [sql.insertIfAbsent] : [];
      const values = {
        operation_id: fence.operationId,
        epoch: fence.epoch,
        intent_digest: fence.intentDigest,
        holder: fence.holder,
        now_ms: nowMs,
      };
      if (flaws.epochOverwrite) {
        // Last writer wins: the fence is whatever the latest preparer says, also an older epoch.
        const answer = toAnswer(await dialect.batch([...insert, sql.overwriteFence, sql.select], values));
        return { ...answer, installed: answer.epoch === fence.epoch };
      }
      if (flaws.epochOnlyGuard || flaws.ignoreEpoch) {
        // epoch-only: raise for any intent, and an equal epoch counts whoever installed it;
        // ignore-epoch: never raise, and whatever epoch the row holds counts.
        const raise = flaws.epochOnlyGuard ? [sql.raiseEpochAnyIntent] : [];
        const answer = toAnswer(await dialect.batch([...insert, ...raise, sql.select], values));
        const installed = answer.epoch !== null && (flaws.ignoreEpoch || answer.epoch === fence.epoch);
        return { ...answer, installed };
      }
      const evidence = await installFence(dialect, fence, creating, nowMs);
      return flaws.queryLies ? hide(evidence) : evidence;
    },
    guard:
      flaws.noFence || flaws.splitMarker || flaws.markerFails
        ? async () => ({ applied: true })
        : (tx, dialect, fence, nowMs) => guard(tx, dialect, fence, null, nowMs),
    ...(flaws.deleteOutsideGuard ? { deleteOutsideGuard: true } : {}),
    ...(flaws.twoCommits ? { dialect: twoCommitsDialect } : {}),
    ...(flaws.changesValues ? { rows: normalisedText } : {}),
    ...(flaws.roundsNumbers ? { rows: roundedNumbers } : {}),
    ...(flaws.narrowsReals ? { rows: narrowedReals } : {}),
    ...(flaws.shiftsZones ? { rows: shiftedZones } : {}),
    ...(flaws.markerFails
      ? {
          // The marker's own transaction fails after the data committed (as a lost connection would).
          afterCommit: async () => {
            throw new Error('dpone unsafe variant: the marker write failed after the data committed');
          },
        }
      : {}),
    ...(flaws.splitMarker && !flaws.noFence
      ? {
          // The marker in a transaction of its own, after the data's COMMIT returned.
          afterCommit: async (dialect: MarkerDialect, fence, rows, nowMs) => {
            await guard({ run: (sql, params) => dialect.batch([sql], params) }, dialect, fence, rows, nowMs);
          },
        }
      : {}),
    async query(dialect, operationId) {
      if (flaws.noFence) {
        // It pretends a fence that never saw a commit (an honest "no fence" would stop the run).
        return {
          status: 'not-committed',
          epoch: 0,
          committedEpoch: null,
          rowsWritten: null,
          intentDigest: null,
          holder: null,
        };
      }
      const answer = await readFence(dialect, operationId);
      return flaws.queryLies ? hide(answer) : answer;
    },
  };
}

/**
 * The named variant over the dialect `open` gives. An unknown name, or one harmless on a marker
 * fence, is bad input naming DPONE_UNSAFE_VARIANT, refused before anything is opened.
 */
export async function unsafeMarkerTarget(
  name: string,
  open: () => Promise<MarkerDialect>,
  options: MarkerTargetOptions,
  flaws: TargetFlaws = unsafeVariantFlaws(name, 'transactional-commit-marker'),
): Promise<MarkerTarget> {
  const protocol = flawedProtocol(flaws);
  return new MarkerTarget(await open(), options, protocol);
}
