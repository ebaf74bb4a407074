import { describe, expect, it } from 'vitest';
import type { CellEvidence } from '../evidence/evidence-types.ts';
import { evidenceFixture } from './fixtures/evidence-fixture.ts';
import { killLandingLines, killLandings } from './kill-landings.ts';

function windowKill(index: number, landed: string | undefined, variant: string | null = null): CellEvidence {
  const base = evidenceFixture().cells[0]!;
  return {
    ...base,
    id: `large/random/mutation/seed42-${index}${variant ? `@${variant}` : ''}`,
    scenario: 'large',
    variant,
    fault: {
      kind: 'crash',
      attempt: 1,
      after_point: 'target.mutate:begin',
      delay_ms: 10,
      ...(landed ? { landed } : {}),
    },
  };
}

describe('kills inside the mutation', () => {
  it('counts per scenario from each cell’s own landing, not from the plan', () => {
    const evidence = evidenceFixture();
    const cells = [
      ...evidence.cells,
      windowKill(1, 'inside-mutation'),
      windowKill(2, 'after-mutation'),
      windowKill(3, 'inside-mutation'),
      windowKill(4, 'after-exit'),
      // A variant's cell and one that never ran (no landing) are not the route's kills.
      windowKill(5, 'inside-mutation', 'commit-per-chunk'),
      windowKill(6, undefined),
    ];
    expect(killLandings({ ...evidence, cells })).toEqual([
      { scenario: 'large', kills: 4, inside: 2, outside: 2 },
    ]);
    expect(killLandingLines({ ...evidence, cells })[0]).toMatch(
      /^large: 2 of 4 random kills landed inside the mutation \(2 outside it/,
    );
  });

  it('says nothing for a run without mutation-window kills', () => {
    expect(killLandingLines(evidenceFixture())).toEqual([]);
  });
});
