import { invalidInput } from '../contracts/errors.ts';
import type { FenceCapabilityKind } from './connector.ts';

/**
 * The shared catalogue of DELIBERATELY BROKEN target and executor behaviours the connectors offer
 * the harness's sensitivity check (each offered variant must make a certification FAIL): the flaws
 * any target of a fence capability, or the executor itself, can have. A connector implements the
 * flaws; this file only names them, says what each breaks, and on which fence capability it is
 * really unsafe, so every route of a capability is tested against the same list and no route
 * carries a variant its fence makes harmless. A flaw only one engine can have (its storage, its
 * protocol, its server, its own journal) is that engine's: it registers it from its folder
 * (ConnectorPlugin.unsafeCatalogue), and the composition root assembles the whole catalogue
 * (src/cli/unsafe-catalogue.ts, assembleUnsafeCatalogue below), where the harness looks names up.
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
  /** Staging/swap: the swap does not claim its partition, so two operations' replaces interleave. */
  readonly unclaimedPartition?: boolean;
  /**
   * prepareFence installs the fence by upsert, last writer wins: whoever prepares sets the epoch
   * to its own (also a lower one) and the fence back to prepared for its intent.
   */
  readonly epochOverwrite?: boolean;
  /** prepareFence creates a missing fence row on every preparation, not only the first (journal PREPARING). */
  readonly recreatesLostFence?: boolean;
  /** replace-partition deletes the partition's rows in a transaction of its own, before the guarded one. */
  readonly deleteOutsideGuard?: boolean;
  /**
   * The data commits without the marker, whose write (in a transaction of its own, after) fails:
   * the run reports the mutation's failure, and the fence says not committed.
   */
  readonly markerFails?: boolean;
  /**
   * The mutation's `commit()` sends the data's COMMIT, then the fence marker's in a transaction of
   * its own: two transactions inside one protocol step, with no named fault point between them.
   */
  readonly twoCommits?: boolean;
  /** Text values are NFC-normalised on the way into the target. */
  readonly changesValues?: boolean;
  /**
   * Instants lose their zone on the way: a timestamp with an offset arrives as the wall clock of
   * another zone (-08:00) written without any, which the target reads as UTC.
   */
  readonly shiftsZones?: boolean;
  /** Numbers go through a JS double on the way into the target (an integer beyond 2^53 travels as text: that text too). */
  readonly roundsNumbers?: boolean;
  /** A floating-point value with no fraction (REAL 20.0) is bound as an integer (the target stores INTEGER 20). */
  readonly narrowsReals?: boolean;
  /**
   * An embedded target's file is opened with this synchronous level instead of FULL (OFF: never
   * synced; NORMAL: in WAL mode synced only at a checkpoint), so a COMMIT (the data and the fence's
   * marker) returns before it is on disk. The power-loss cells under the target read it.
   */
  readonly synchronous?: 'OFF' | 'NORMAL';
}

/**
 * DELIBERATELY BROKEN executor behaviours, for the same sensitivity check: flaws of the runtime
 * itself rather than of a target, so every route offers them whatever its fence.
 */
export interface RuntimeFlaws {
  /** The source is read before the journal's intent is checked (a prefetch while the journal is read). */
  readonly ioBeforeIntentCheck?: boolean;
  /** That prefetch's failure is swallowed (it was only a prefetch): the run goes on as if it never tried. */
  readonly quietPrefetch?: boolean;
  /** An outcome the target cannot prove is taken for "not committed": the mutation is replayed. */
  readonly replayUnknown?: boolean;
  /** A journal entry found COMPLETE is believed without asking the target's fence (a lost commit stays "complete"). */
  readonly trustsComplete?: boolean;
  /**
   * Leases are decided by the holder's clock as it wrote them: a server journal binds the caller's
   * time instead of its own, and no journal bounds a stored expiry by the largest TTL (before issue 30).
   */
  readonly trustHolderClock?: boolean;
  /**
   * The file journal is opened with this synchronous level instead of FULL (JournalOpenOptions
   * `unsafeSynchronous`): its committed transitions are not on disk when they return.
   */
  readonly journalSynchronous?: 'OFF' | 'NORMAL';
  /**
   * The state folder (`execution.state_dir`, where the default journal lives) is created as
   * `mkdir -p` does, without syncing its parent: the folder's entry, and the journal in it with it,
   * is not on disk when the run goes on.
   */
  readonly unsyncedFolders?: boolean;
  /** Recovery actions read the fence's proof without raising its epoch first (before issue 30). */
  readonly recoveryWithoutFence?: boolean;
  /**
   * A compare-and-set that lost its race is retried on the version read back, whenever the state
   * is still one it expected, without asking whose lease that version carries.
   */
  readonly leaseBlindCas?: boolean;
  /** Shadow mode: a write that returned is never recorded as committed (the attempt stays unfinished). */
  readonly shadowUnrecordedWrite?: boolean;
  /** `dpone shadow report` counts only the writes enforcement would have allowed (a refused one is dropped). */
  readonly shadowReportMiscounts?: boolean;
  /** Shadow mode refuses a retry of an operation already recorded committed (enforcing, where legacy writes). */
  readonly shadowBlocksRetry?: boolean;
}

export interface UnsafeVariant<Flaws extends TargetFlaws = TargetFlaws> {
  /** The target's flaws: the shared ones, or an engine's own beyond them (only it reads those). */
  readonly flaws: Flaws;
  /** Flaws of the executor (absent: none); such a variant leaves the target as certified. */
  readonly runtime?: RuntimeFlaws;
  /** What is broken and what a certification sees of it. */
  readonly description: string;
  /** The fence capabilities on which this flaw is really unsafe; connectors offer only those. */
  readonly unsafeOn: readonly FenceCapabilityKind[];
  /**
   * `cells`: the fence contract cannot see it (it changes rows, a replace's delete, or the
   * executor), only certification cells do — row parity, a zombie after a replace, storage sealed
   * for a conflicting attempt. Absent: the connector kit itself fails on it (the fence contract,
   * or its atomicity checks: a marker committed apart from the data).
   */
  readonly caughtBy?: 'cells';
  /**
   * The fault kinds whose sensitive cells this variant is run against (absent: every kind): a flaw
   * only a clock nemesis can show need not rerun every crash cell.
   */
  readonly kinds?: readonly string[];
  /**
   * Only these target engines offer it (a flaw harmless on the others: an embedded engine's storage
   * class means nothing to a server's typed column). Absent: every engine of its capabilities.
   */
  readonly engines?: readonly string[];
  /**
   * Runs only on the certification cells that name it (a flaw only one kind of cell can reach, such
   * as two operations on one partition and a restart): every other sensitive cell would run it to no
   * end before that cell catches it.
   */
  readonly onlyWhereNamed?: boolean;
  /**
   * Values the flaw changes, which a route's cells must carry for any cell to see it (absent: any
   * data shows it). A route whose dataset lacks them does not offer the variant: it could only survive.
   */
  readonly shownBy?: VariantData;
  /**
   * A flaw of the server the harness starts for the cell, not of the connector (which stays the
   * certified one): `neverSyncs`, the server acknowledges commits it never syncs (its own setting
   * that turns syncing off); only cells that own the server's storage and cut its power reach it.
   */
  readonly server?: { readonly neverSyncs: true };
}

/** Kinds of values a flaw may need in the cells' data to show at all. */
export type VariantData = 'zoned-instants';

/** Variants by name: the shared catalogue, an engine's own, or the assembled whole. */
export type UnsafeCatalogue = Readonly<Record<string, UnsafeVariant>>;

const MARKER: readonly FenceCapabilityKind[] = ['transactional-commit-marker'];
const STAGING: readonly FenceCapabilityKind[] = ['staging-swap-generation'];
/** A runtime flaw is unsafe whatever the target's fence, also on a target without one. */
export const EVERY_CAPABILITY: readonly FenceCapabilityKind[] = [
  'target-native-idempotency-key',
  'transactional-commit-marker',
  'staging-swap-generation',
  'route-certified-fence',
  'none',
];

export const SHARED_UNSAFE_VARIANTS: UnsafeCatalogue = {
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
      'the fence ignores the epoch (a takeover does not raise it, the guard does not check it): a paused ' +
      "zombie resumed after the next holder prepared the fence commits under a superseded epoch. The marker's " +
      'committed status still stops a second write, so only a cell that reads the target while the next ' +
      'holder is held there sees it; the staging-swap analogue is no-seal below',
    // Reached on purpose: the pause cell that holds the second worker just after its fence.prepare
    // (scenarios/pause.yaml) resumes the zombie into its commit and reads the target's rows (zombie-fenced).
    unsafeOn: MARKER,
    onlyWhereNamed: true,
  },
  'guard-epoch-only': {
    flaws: { epochOnlyGuard: true },
    description:
      'commit guard on epoch only (the fence before issue 10): no committed-status or intent check, ' +
      'and an equal epoch from any holder is accepted, so a lost, restored or forked journal that ' +
      'reissues an epoch writes twice (staging/swap: the generation check looks at the epoch only)',
    unsafeOn: [...MARKER, ...STAGING],
  },
  'epoch-backwards': {
    flaws: { epochOverwrite: true },
    description:
      'the fence is installed by upsert, last writer wins: a late worker that prepares after a newer holder ' +
      'committed moves the epoch back to its own and the fence back to prepared, and its stale commit lands again',
    unsafeOn: MARKER,
  },
  'recreate-lost-fence': {
    flaws: { recreatesLostFence: true },
    description:
      'a missing fence is created again by any preparation, not only the first: a fence lost after the commit ' +
      'comes back empty, answers "not committed", and the retry writes a second time (or a fence row appears ' +
      'where the lost one was, which the fence-loss cells read from the target itself)',
    unsafeOn: MARKER,
  },
  'delete-outside-guard': {
    flaws: { deleteOutsideGuard: true },
    description:
      'replace-partition deletes the partition in a transaction of its own before the guarded one: a zombie or ' +
      'a replay the guard refuses has already deleted the rows the winner loaded',
    unsafeOn: MARKER,
    caughtBy: 'cells',
  },
  'unmarked-commit': {
    flaws: { markerFails: true },
    description:
      'the data commits but the marker, written after it in a transaction of its own, fails: the fence says ' +
      'not committed, so even a clean run ends failed (exit 12) with the rows in the target, and its retry ' +
      'writes them again; a reference run that fails must be a FAIL with its evidence, not a harness error',
    unsafeOn: MARKER,
  },
  'two-commits': {
    flaws: { twoCommits: true },
    description:
      "commit() sends the data's COMMIT and then the fence marker's in a second transaction, both inside one " +
      'protocol step: a kill between the two statements leaves the rows committed and the fence denying them, ' +
      'and the retry writes them again; no named fault point lies between them, only a statement boundary does',
    unsafeOn: MARKER,
  },
  'value-changed': {
    flaws: { changesValues: true },
    description:
      'a value changes on the way: text is NFC-normalised into the target (an NFD source value arrives altered), ' +
      'which only per-value row parity shows',
    unsafeOn: MARKER,
    caughtBy: 'cells',
  },
  'number-rounded': {
    flaws: { roundsNumbers: true },
    description:
      'numbers go through a JS double on the way: a 64-bit integer beyond 2^53 or an 18-digit decimal arrives ' +
      'rounded, without any error; only per-value row parity on such values shows it',
    unsafeOn: [...MARKER, ...STAGING],
    caughtBy: 'cells',
  },
  'timezone-shifted': {
    flaws: { shiftsZones: true },
    shownBy: 'zoned-instants',
    description:
      'instants lose their zone on the way: a timestamp with an offset (+05:30, -08:00, a DST edge, Z) is ' +
      'written as the wall clock of a -08:00 host without any zone, so the target holds another instant, ' +
      'without any error; only per-value row parity on instants compared in UTC shows it',
    unsafeOn: MARKER,
    caughtBy: 'cells',
  },
  'io-before-intent': {
    flaws: {},
    runtime: { ioBeforeIntentCheck: true },
    description:
      'the executor reads the source before it checks the journal intent: an intent conflict is refused only ' +
      'after source I/O, which the storage sealed for the conflicting attempt shows',
    unsafeOn: EVERY_CAPABILITY,
    caughtBy: 'cells',
  },
  'lease-blind-cas': {
    flaws: {},
    runtime: { leaseBlindCas: true },
    description:
      'a compare-and-set that lost its race is retried on the version read back, without asking whose lease it ' +
      'carries: a paused zombie advances the journal while another executor holds the lease (the fence still keeps ' +
      "the data exactly-once: only the journal's history, checked against the lease, shows it)",
    // Reached on purpose, not by timing: the pause cells that hold the second worker just after it took
    // the lease (scenarios/pause.yaml, `hold_second_at`) continue the zombie into a journal another
    // executor leased but has not advanced, every run. On a staging fence the seal refuses the resumed
    // holder before it writes the journal again, so it is offered on marker fences only, and only to the
    // cells that name it.
    unsafeOn: MARKER,
    onlyWhereNamed: true,
    caughtBy: 'cells',
  },
  'quiet-io-before-intent': {
    flaws: {},
    runtime: { ioBeforeIntentCheck: true, quietPrefetch: true },
    description:
      "the executor prefetches the source before it checks the journal intent and swallows the prefetch's error: " +
      'against sealed storage the attempt fails to read, says nothing and is refused as a conflict as if it never ' +
      'tried; only a seal that sees attempts (an open of the sealed file, a connection to the listener) shows it',
    unsafeOn: EVERY_CAPABILITY,
    caughtBy: 'cells',
  },
  'replay-unknown': {
    flaws: {},
    runtime: { replayUnknown: true },
    description:
      'an outcome the target cannot prove is taken for "not committed" and the mutation replayed: on a target ' +
      'without a fence a committed write lands twice (a fenced target refuses the replay: harmless there)',
    unsafeOn: ['none'],
    caughtBy: 'cells',
  },
  'skips-complete-check': {
    flaws: {},
    runtime: { trustsComplete: true },
    description:
      'a journal entry found COMPLETE is believed without asking the target: after a failover lost the commit ' +
      'the run answers already-complete with the rows missing, forever; only a lost-commit cell shows it',
    unsafeOn: [],
    caughtBy: 'cells',
  },
  'trust-holder-clock': {
    flaws: {},
    runtime: { trustHolderClock: true },
    description:
      'leases are decided by the clock of whoever wrote them: a holder whose clock ran ahead (a year, two ' +
      'hours) leaves an expiry every retry believes, and the operation is wedged for as long as that clock ' +
      'was ahead (a server journal binds the worker’s time, a file journal takes any expiry as true)',
    unsafeOn: EVERY_CAPABILITY,
    caughtBy: 'cells',
    kinds: ['clock-skew'],
  },
  'state-folder-unsynced': {
    flaws: {},
    runtime: { unsyncedFolders: true },
    description:
      'the run creates its state folder (execution.state_dir, where the default journal lives) without syncing the ' +
      'folder it is created in: the journal syncs its own file and its folder, but the state folder’s entry is not on ' +
      'disk, and a power cut takes the folder, and every transition in the journal with it; only a power-loss cell ' +
      'whose journal is the default one in a new state folder shows it',
    unsafeOn: EVERY_CAPABILITY,
    caughtBy: 'cells',
    kinds: ['power-loss'],
  },
  'recovery-without-fence': {
    flaws: {},
    runtime: { recoveryWithoutFence: true },
    description:
      'an operator’s recovery action reads the fence’s "not committed" without raising the fence’s epoch ' +
      'first: a holder still inside its commit lands it afterwards, and the audit record states a proof ' +
      'that was false',
    unsafeOn: EVERY_CAPABILITY,
    caughtBy: 'cells',
    kinds: ['clock-skew'],
  },
  // Shadow mode's own flaws (issue 36): only the shadow cells reach them, on routes with plain writes.
  'shadow-unrecorded-write': {
    flaws: {},
    runtime: { shadowUnrecordedWrite: true },
    description:
      'shadow mode writes but never records the outcome: every retry that wrote again is "unfinished", and the ' +
      'report counts no duplicate where the target holds two mutations',
    unsafeOn: ['none'],
    caughtBy: 'cells',
    kinds: ['shadow'],
  },
  'shadow-report-miscounts': {
    flaws: {},
    runtime: { shadowReportMiscounts: true },
    description:
      'the shadow report counts only writes enforcement would have allowed: a retry that wrote again is dropped, ' +
      'and the duplicates the target shows are missing from the report',
    unsafeOn: ['none'],
    caughtBy: 'cells',
    kinds: ['shadow'],
  },
  'shadow-blocks-retry': {
    flaws: {},
    runtime: { shadowBlocksRetry: true },
    description:
      'shadow mode refuses a retry the journal says already committed: it enforces where it must only measure, ' +
      'and the target no longer holds what legacy would have written',
    unsafeOn: ['none'],
    caughtBy: 'cells',
    kinds: ['shadow'],
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
  'unclaimed-partition': {
    flaws: { unclaimedPartition: true },
    description:
      'a replace swaps without claiming its partition: another operation swapping between its tag read and its ' +
      'swap is never deleted durably, and a server restart brings that copy back next to its own (both commit)',
    unsafeOn: STAGING,
    caughtBy: 'cells',
    onlyWhereNamed: true,
  },
  'untagged-staging': {
    flaws: { untaggedStaging: true },
    description:
      'staged rows are not tagged with operation and epoch: the target cannot prove which generation ' +
      'landed, and after a kill between swap and commit record the retry attaches again',
    unsafeOn: STAGING,
  },
};

/**
 * The whole catalogue: the shared one and each engine's own (ConnectorPlugin.unsafeCatalogue), in
 * that order. A name registered twice is a programming error: two flaws would answer to one name.
 */
export function assembleUnsafeCatalogue(
  shared: UnsafeCatalogue,
  own: readonly (readonly [engine: string, catalogue: UnsafeCatalogue])[],
): UnsafeCatalogue {
  const whole: Record<string, UnsafeVariant> = { ...shared };
  for (const [engine, catalogue] of own) {
    for (const [name, variant] of Object.entries(catalogue)) {
      if (Object.hasOwn(whole, name))
        throw new TypeError(`unsafe variant "${name}" of engine ${engine} is already in the catalogue`);
      whole[name] = variant;
    }
  }
  return whole;
}

/**
 * The variant names a route whose target has this fence capability is certified against (really
 * unsafe there): the target's own flaws and the executor's. `catalogue`: where to look (default
 * the shared one; the harness and the host pass the assembled whole).
 */
export function unsafeVariantsFor(
  capability: FenceCapabilityKind,
  engine?: string,
  catalogue: UnsafeCatalogue = SHARED_UNSAFE_VARIANTS,
): string[] {
  return Object.entries(catalogue)
    .filter(([, variant]) => variant.unsafeOn.includes(capability))
    .filter(([, variant]) => !variant.engines || (engine !== undefined && variant.engines.includes(engine)))
    .map(([name]) => name);
}

/**
 * The variants of this capability the fence contract alone must fail on (the connector kit's
 * `checkFenceContract`); the others are caught only by certification cells.
 */
export function fenceContractVariantsFor(
  capability: FenceCapabilityKind,
  catalogue: UnsafeCatalogue = SHARED_UNSAFE_VARIANTS,
): string[] {
  return unsafeVariantsFor(capability, undefined, catalogue).filter(
    (name) => catalogue[name]!.caughtBy !== 'cells',
  );
}

/** The variants a connector with this capability implements itself: those that break the target. */
export function targetVariantsFor(
  capability: FenceCapabilityKind,
  engine?: string,
  catalogue: UnsafeCatalogue = SHARED_UNSAFE_VARIANTS,
): string[] {
  return unsafeVariantsFor(capability, engine, catalogue).filter(
    (name) => Object.keys(catalogue[name]!.flaws).length > 0,
  );
}

/** Selects the variant; both variables are required so a stray one can never turn fencing off. */
export const UNSAFE_VARIANT_ENV = 'DPONE_UNSAFE_VARIANT';
export const HARNESS_ENV = 'DPONE_HARNESS';

/**
 * The flaws of a named variant in `catalogue` (default the shared one). An unknown name, or one
 * not offered for `capability` (it would be harmless there), is bad input naming the variable.
 */
export function unsafeVariantFlaws(
  name: string,
  capability?: FenceCapabilityKind,
  catalogue: UnsafeCatalogue = SHARED_UNSAFE_VARIANTS,
): TargetFlaws {
  const variant = Object.hasOwn(catalogue, name) ? catalogue[name] : undefined;
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
