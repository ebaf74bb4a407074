import { invalidInput } from '../contracts/errors.ts';
import type { FenceCapabilityKind } from './connector.ts';

/**
 * The catalogue of DELIBERATELY BROKEN target behaviours the connectors offer the harness's
 * sensitivity check (each offered variant must make a certification FAIL). A connector implements
 * the flaws; this file only names them, says what each breaks, and on which fence capability it
 * is really unsafe, so every route of a capability is tested against the same list and no route
 * carries a variant its fence makes harmless.
 */
export interface TargetFlaws {
  /** prepareFence does nothing and mutate writes without any guard or marker. */
  readonly noFence?: boolean;
  /** Every fence read (prepare's answer and queryFence) says not-committed even when the marker says committed. */
  readonly queryLies?: boolean;
  /** Data commits in one transaction, the marker in a later one. */
  readonly splitMarker?: boolean;
  /** The guard ignores the epoch and prepareFence never raises it (a zombie's stale epoch is not refused). */
  readonly ignoreEpoch?: boolean;
  /**
   * The fence before issue 10: the commit guard checks the epoch only (no committed status, no
   * intent) and prepareFence accepts an equal epoch from any holder, so a reset, restored or
   * forked journal that issues an epoch again writes a second time.
   */
  readonly epochOnlyGuard?: boolean;
  /** Staging/swap: no staging table; the rows are INSERTed straight into the target. */
  readonly directInsert?: boolean;
  /** Staging/swap: a new holder neither seals nor counts older epochs' staging tables. */
  readonly noSeal?: boolean;
  /** Staging/swap: the fence is answered from the fence log alone, not from the target's tagged rows. */
  readonly logOnlyFence?: boolean;
  /** Staging/swap: staged rows carry no operation and epoch tag. */
  readonly untaggedStaging?: boolean;
}

export interface UnsafeVariant {
  readonly flaws: TargetFlaws;
  /** What is broken and what a certification sees of it. */
  readonly description: string;
  /** The fence capabilities on which this flaw is really unsafe; connectors offer only those. */
  readonly unsafeOn: readonly FenceCapabilityKind[];
}

const MARKER: readonly FenceCapabilityKind[] = ['transactional-commit-marker'];
const STAGING: readonly FenceCapabilityKind[] = ['staging-swap-generation'];

export const UNSAFE_VARIANTS: Readonly<Record<string, UnsafeVariant>> = {
  'no-fence': {
    flaws: { noFence: true },
    description: 'no fence at all: every retry after a crash writes the data again',
    unsafeOn: MARKER,
  },
  'query-lies': {
    flaws: { queryLies: true },
    description:
      'every fence read hides a commit: HARMLESS for data on a transactional marker, whose guard refuses ' +
      'the replay the lie invites (the operation stalls in COMMIT_UNKNOWN instead, never a second ' +
      'mutation), so no route offers it; a certification catches a variant only by a duplicate or extra mutation',
    unsafeOn: [],
  },
  'split-marker': {
    flaws: { splitMarker: true },
    description:
      'data and marker commit in two transactions: a crash between them leaves data the fence denies',
    unsafeOn: MARKER,
  },
  'ignore-epoch': {
    flaws: { ignoreEpoch: true },
    description:
      'the guard ignores the epoch: HARMLESS on a transactional marker, whose guard also refuses an ' +
      'operation already committed (a zombie can commit only if nobody did), so no route offers it; ' +
      'the staging-swap analogue is no-seal below',
    unsafeOn: [],
  },
  'guard-epoch-only': {
    flaws: { epochOnlyGuard: true },
    description:
      'commit guard on epoch only (the fence before issue 10): no committed-status or intent check, ' +
      'and an equal epoch from any holder is accepted, so a lost, restored or forked journal that ' +
      'reissues an epoch writes twice (staging/swap: the generation check looks at the epoch only)',
    unsafeOn: [...MARKER, ...STAGING],
  },
  'direct-insert': {
    flaws: { directInsert: true },
    description:
      'no staging table: the rows are inserted straight into the target, so nothing can seal a paused ' +
      'writer, which inserts after a newer holder committed',
    unsafeOn: STAGING,
  },
  'no-seal': {
    flaws: { noSeal: true },
    description:
      'no sealing of older epochs: a paused older holder attaches its staged generation after a newer one committed',
    unsafeOn: STAGING,
  },
  'log-only-fence': {
    flaws: { logOnlyFence: true },
    description:
      'the fence is answered from the fence log alone: a worker killed between the swap and its commit ' +
      'record is "not committed", and the retry attaches the batch again',
    unsafeOn: STAGING,
  },
  'untagged-staging': {
    flaws: { untaggedStaging: true },
    description:
      'staged rows are not tagged with operation and epoch: the target cannot prove which generation ' +
      'landed, and after a kill between swap and commit record the retry attaches again',
    unsafeOn: STAGING,
  },
};

/** The variant names a connector with this fence capability offers (really unsafe there). */
export function unsafeVariantsFor(capability: FenceCapabilityKind): string[] {
  return Object.entries(UNSAFE_VARIANTS)
    .filter(([, variant]) => variant.unsafeOn.includes(capability))
    .map(([name]) => name);
}

/** Selects the variant; both variables are required so a stray one can never turn fencing off. */
export const UNSAFE_VARIANT_ENV = 'DPONE_UNSAFE_VARIANT';
export const HARNESS_ENV = 'DPONE_HARNESS';

/** The requested variant's name under DPONE_HARNESS=1, else null. */
export function requestedUnsafeVariant(env: NodeJS.ProcessEnv): string | null {
  const name = env[UNSAFE_VARIANT_ENV];
  return name && env[HARNESS_ENV] === '1' ? name : null;
}

/**
 * The flaws of a named variant. An unknown name, or one not offered for `capability` (it would be
 * harmless there), is bad input naming the variable.
 */
export function unsafeVariantFlaws(name: string, capability?: FenceCapabilityKind): TargetFlaws {
  const variant = Object.hasOwn(UNSAFE_VARIANTS, name) ? UNSAFE_VARIANTS[name] : undefined;
  if (!variant) throw invalidInput(`unknown unsafe variant "${name}"`, { field: UNSAFE_VARIANT_ENV });
  if (capability !== undefined && !variant.unsafeOn.includes(capability)) {
    throw invalidInput(
      `unsafe variant "${name}" is not offered for a ${capability} fence (it is harmless there)`,
      {
        field: UNSAFE_VARIANT_ENV,
      },
    );
  }
  return variant.flaws;
}
