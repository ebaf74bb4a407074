import type { UnsafeCatalogue } from '../../src/ports/unsafe-variants.ts';
import { EVERY_CAPABILITY } from '../../src/ports/unsafe-variants.ts';

/**
 * SQLite's own unsafe variants, beyond the shared catalogue (src/ports/unsafe-variants.ts): flaws of
 * its storage classes, of its target file's and its journal file's syncing. Registered through the
 * engine's entry (engine.ts `unsafeCatalogue`), assembled with the shared ones and the other
 * engines' at the composition root (src/cli/unsafe-catalogue.ts). Data only, so the registration
 * loads nothing else; sqlite-unsafe-variants.ts builds the targets, the runtime opens the journal.
 */
const MARKER = ['transactional-commit-marker'] as const;

export const SQLITE_UNSAFE_CATALOGUE: UnsafeCatalogue = {
  'real-as-integer': {
    flaws: { narrowsReals: true },
    description:
      'a REAL with no fraction is bound as an integer: SQLite stores INTEGER 20 where the source had REAL 20.0, ' +
      "without any error; only parity in the target's own storage classes shows it",
    unsafeOn: MARKER,
    caughtBy: 'cells',
    engines: ['sqlite'],
  },
  'journal-sync-off': {
    flaws: {},
    runtime: { journalSynchronous: 'OFF' },
    description:
      'the SQLite journal is opened with synchronous=OFF: a transition returns before it is on disk, and a ' +
      'power cut takes back what the killed run was told had committed; the fence still keeps the target to one ' +
      'mutation, only a power-loss cell (the journal on a filesystem that drops what was not synced) shows it',
    unsafeOn: EVERY_CAPABILITY,
    caughtBy: 'cells',
    // Only power-loss cells reach it (scenarios/storage/sqlite-power-loss.yaml, routes whose journal
    // is this engine's file): a route without them plans no cell of this variant. Offered on every
    // capability: the journal is the executor's, whatever the target.
    kinds: ['power-loss'],
  },
  'target-sync-off': {
    flaws: { synchronous: 'OFF' },
    description:
      'the SQLite target is opened with synchronous=OFF: the COMMIT of the data and its fence marker returns before ' +
      'it is on disk, and a power cut takes back a mutation the killed run was told had landed (the journal then ' +
      'says TARGET_COMMITTED for rows that are gone); only a power-loss cell under the target (the target on a ' +
      'filesystem that drops what was not synced) shows it',
    unsafeOn: MARKER,
    caughtBy: 'cells',
    engines: ['sqlite'],
    // Only the target's power-loss cells reach it (scenarios/storage/sqlite-target-power-loss.yaml).
    kinds: ['power-loss'],
  },
  'journal-sync-normal': {
    flaws: {},
    runtime: { journalSynchronous: 'NORMAL' },
    description:
      'the SQLite journal is opened with synchronous=NORMAL: in WAL mode a transition is synced only at the next ' +
      'checkpoint, so it returns before it is on disk and a power cut takes back what the killed run was told had ' +
      'committed; only a power-loss cell shows it',
    unsafeOn: EVERY_CAPABILITY,
    caughtBy: 'cells',
    kinds: ['power-loss'],
  },
  'target-sync-normal': {
    flaws: { synchronous: 'NORMAL' },
    description:
      'the SQLite target is opened with synchronous=NORMAL: in WAL mode the COMMIT of the data and its fence marker ' +
      'is synced only at the next checkpoint, so a power cut takes back a mutation the killed run was told had ' +
      'landed; only a power-loss cell under the target shows it',
    unsafeOn: MARKER,
    caughtBy: 'cells',
    engines: ['sqlite'],
    kinds: ['power-loss'],
  },
};
