import { beforeAll, describe, expect, it } from 'vitest';
import { sampleEvidence } from '../checkers/fixtures/sample-evidence.ts';
import { withDigest } from './evidence-digest.ts';
import type { CellEvidence, Evidence } from './evidence-types.ts';
import { verifyEvidence } from './evidence-verify.ts';

let sealed: Evidence;
beforeAll(async () => {
  sealed = withDigest(await sampleEvidence());
});

function editCell(evidence: Evidence, index: number, change: (cell: CellEvidence) => CellEvidence): Evidence {
  return { ...evidence, cells: evidence.cells.map((cell, at) => (at === index ? change(cell) : cell)) };
}

describe('verifyEvidence', () => {
  it('accepts evidence straight from real cells: a PASS cell and a caught unsafe variant', () => {
    expect(sealed.verdict).toBe('PASS');
    expect(sealed.sensitivity).toEqual([
      expect.objectContaining({
        variant: 'no-fence',
        caught: true,
        example_cell: 'variant/no-fence/retry/2',
      }),
    ]);
    expect(verifyEvidence(sealed)).toEqual({ ok: true, differences: [] });
  });

  it('detects a hand-edited cell verdict, even when the editor re-sealed the digest', () => {
    const edited = withDigest(editCell(sealed, 1, (cell) => ({ ...cell, verdict: 'PASS' })));
    const result = verifyEvidence(edited);
    expect(result.ok).toBe(false);
    expect(result.differences).toContain(
      'cell variant/no-fence/retry/2: verdict: stored PASS, recomputed FAIL',
    );
  });

  it('detects a tampered snapshot: mutations 2 rewritten to 1 contradicts the stored audit trail', () => {
    const tampered = editCell(sealed, 1, (cell) => ({ ...cell, target: { ...cell.target!, mutations: 1 } }));
    const unsealed = verifyEvidence(tampered);
    expect(unsealed.differences[0]).toMatch(/^digest: stored sha256:\w+, content hashes to sha256:\w+$/);
    const resealed = verifyEvidence(withDigest(tampered));
    expect(resealed.differences).toContain(
      'cell variant/no-fence/retry/2: target.mutations: stored 1, recomputed 2',
    );
  });

  it('detects a snapshot whose mutations say 2 under a PASS verdict', () => {
    const tampered = withDigest(
      editCell(sealed, 0, (cell) => {
        const audit = cell.target!.audit!;
        const twice = {
          ...audit,
          mutation_records: [...audit.mutation_records, { marker: 'run-2', rows: 3 }],
        };
        return { ...cell, target: { ...cell.target!, mutations: 2, audit: twice } };
      }),
    );
    const result = verifyEvidence(tampered);
    expect(result.differences).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^cell retry\/2: check mutations: stored PASS, recomputed FAIL/),
        'cell retry/2: verdict: stored PASS, recomputed FAIL',
        'verdict: stored PASS, recomputed FAIL',
      ]),
    );
  });

  it('detects a sensitivity record that claims an uncaught variant was caught, and the run verdict it hides', () => {
    const survived = withDigest({
      ...editCell(sealed, 1, (cell) => ({
        ...cell,
        verdict: 'PASS',
        checks: cell.checks.map((c) => ({ ...c, verdict: 'PASS' as const })),
        target: null,
        journal: null,
      })),
    });
    const result = verifyEvidence(survived);
    expect(result.differences).toEqual(
      expect.arrayContaining([
        'sensitivity no-fence.caught: stored true, recomputed false',
        'verdict: stored PASS, recomputed FAIL',
      ]),
    );
  });

  it('reports a missing digest', () => {
    const { digest: _digest, ...bare } = sealed;
    expect(verifyEvidence(bare as Evidence).differences).toEqual([expect.stringMatching(/^digest: missing/)]);
  });
});
