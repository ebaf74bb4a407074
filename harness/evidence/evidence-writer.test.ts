import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evidenceOf } from '../checkers/fixtures/sample-evidence.ts';
import { evidenceDigest } from './evidence-digest.ts';
import { readEvidence, writeEvidence } from './evidence-writer.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dpone-evidence-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('evidence writer and reader', () => {
  it('writes DIR/evidence.json with its digest and moves reports/latest to the newest run', () => {
    const reports = join(root, 'reports');
    const first = writeEvidence(join(reports, 'run-1'), { ...evidenceOf([]), run_id: 'run-1' });
    expect(first.file).toBe(join(reports, 'run-1', 'evidence.json'));
    expect(first.evidence.digest).toBe(evidenceDigest(first.evidence));
    expect(readlinkSync(join(reports, 'latest'))).toBe('run-1');
    writeEvidence(join(reports, 'run-2'), { ...evidenceOf([]), run_id: 'run-2' });
    expect(readlinkSync(join(reports, 'latest'))).toBe('run-2');
    expect(readEvidence(join(reports, 'latest')).run_id).toBe('run-2');
  });

  it('round-trips: what readEvidence returns is what was written, digest included', () => {
    const written = writeEvidence(join(root, 'out'), evidenceOf([]));
    expect(written.latest).toBeNull();
    expect(readEvidence(written.file)).toEqual(JSON.parse(readFileSync(written.file, 'utf8')));
    expect(readEvidence(written.file).digest).toBe(written.evidence.digest);
  });

  it('writes reports/latest.json instead when the latest symlink cannot be made', () => {
    const reports = join(root, 'reports');
    // A real directory named "latest" cannot be replaced by a symlink.
    mkdirSync(join(reports, 'latest'), { recursive: true });
    writeFileSync(join(reports, 'latest', 'keep'), '');
    const written = writeEvidence(join(reports, 'run-1'), evidenceOf([]));
    expect(written.latest).toBe(join(reports, 'latest.json'));
    const pointer = JSON.parse(readFileSync(join(reports, 'latest.json'), 'utf8'));
    expect(pointer).toEqual({ run_id: 'run-test', dir: 'run-1', evidence: join('run-1', 'evidence.json') });
  });

  it('rejects what is not evidence with DPONE_INVALID_INPUT naming the file and the field', () => {
    const notJson = join(root, 'a.json');
    writeFileSync(notJson, 'hello');
    expect(() => readEvidence(notJson)).toThrow(
      expect.objectContaining({
        code: 'DPONE_INVALID_INPUT',
        message: `${notJson} is not a dpone evidence file: not JSON`,
      }),
    );
    const otherJson = join(root, 'package.json');
    writeFileSync(otherJson, JSON.stringify({ name: 'x' }));
    expect(() => readEvidence(otherJson)).toThrow(
      expect.objectContaining({
        message: expect.stringContaining('schema is not "dpone.evidence/v1"'),
        fields: expect.objectContaining({ field: 'schema' }),
      }),
    );
    const badCell = join(root, 'bad-cell.json');
    writeFileSync(
      badCell,
      JSON.stringify({ ...evidenceOf([]), cells: [{ id: 'x', verdict: 'GREEN', checks: [], attempts: [] }] }),
    );
    expect(() => readEvidence(badCell)).toThrow(
      expect.objectContaining({ message: expect.stringContaining('cells[0].verdict') }),
    );
    expect(() => readEvidence(join(root, 'nope.json'))).toThrow(
      expect.objectContaining({ code: 'DPONE_INVALID_INPUT', message: expect.stringContaining('ENOENT') }),
    );
  });
});
