import { describe, expect, it } from 'vitest';
import { recheckCell } from '../../../harness/checkers/recheck-cell.ts';
import { embeddedCells } from './embedded-cells.test-support.ts';

/**
 * Storage cells end to end on the embedded route: real workers on a real full tmpfs, a real
 * damaged journal file, the real checks; each cell re-checks from its evidence alone. The tmpfs
 * needs root: elsewhere the full-disk and read-only-disk cells must be UNVERIFIED, never PASS.
 */
const SCENARIO = `name: storage
faults:
  - kind: full-disk
  - kind: journal-corruption
`;

const cell = await embeddedCells('storage.yaml', SCENARIO);
const readOnlyCell = await embeddedCells(
  'read-only.yaml',
  'name: storage\nfaults:\n  - kind: read-only-disk\n',
);

const root = process.getuid?.() === 0;

describe('storage cells on the embedded route', () => {
  it.skipIf(!root).each([
    ['storage/journal/cas:PREPARING->PREPARED:before#1', 18],
    ['storage/target/cas:PREPARED->COMMITTING:before#1', 18],
    ['storage/target/target.commit:after#1', 0],
  ])('%s: the full disk is exit %i, then one mutation, and the evidence re-checks', async (id, exit) => {
    const evidence = await cell(id);
    expect(evidence.checks.filter((check) => check.verdict !== 'PASS')).toEqual([]);
    expect(evidence.attempts.map((attempt) => attempt.exit_code)).toEqual([exit, 0]);
    expect(evidence.target?.mutations).toBe(1);
    expect(recheckCell(evidence).differences).toEqual([]);
  });

  it.each([
    // Damage the reader meets: 19, then the restored journal completes.
    ['storage/rows/cas:PREPARED->COMMITTING:after#1', [null, 19, 0]],
    // This seed's cut leaves the entry reading as it was (the runtime's reader meets no damage): a normal retry.
    ['storage/truncation/target.commit:before#1', [null, 0]],
  ])('%s: exit 19 where the damage is read, else a normal retry; one mutation', async (id, exits) => {
    const evidence = await cell(id);
    expect(evidence.checks.filter((check) => check.verdict !== 'PASS')).toEqual([]);
    expect(evidence.attempts.map((attempt) => attempt.exit_code)).toEqual(exits);
    expect(evidence.fault.first_read).toBe(exits.length === 3 ? 'error' : 'intact');
    expect(evidence.target?.mutations).toBe(1);
    expect(recheckCell(evidence).differences).toEqual([]);
  });

  it.skipIf(!root).each([
    // A read-only journal: the next attempt is refused before it touches anything.
    ['storage/journal/cas:PREPARING->PREPARED:before#1', [null, 31, 0]],
    // A read-only target before the commit: refused, the journal's lease handed back.
    ['storage/target/cas:PREPARED->COMMITTING:after#1', [null, 31, 0]],
    // The target had committed and the journal says so: nothing left to write there.
    ['storage/target/cas:COMMITTING->TARGET_COMMITTED:after#1', [null, 0, 0]],
  ])('%s: read-only, exits %j, one mutation, and the evidence re-checks', async (id, exits) => {
    const evidence = await readOnlyCell(id);
    expect(evidence.checks.filter((check) => check.verdict !== 'PASS')).toEqual([]);
    expect(evidence.attempts.map((a) => a.exit_code)).toEqual(exits);
    expect(evidence.target?.mutations).toBe(1);
    expect(recheckCell(evidence).differences).toEqual([]);
  });
});
