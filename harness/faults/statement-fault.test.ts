import { describe, expect, it } from 'vitest';
import { occurrencesOf } from '../plan/trace.ts';
import { statementFault, statementBoundaries } from './statement-fault.ts';

const TRACE = occurrencesOf([
  'fence.prepare:before',
  'stmt:prepare.1:before',
  'stmt:prepare.1:after',
  'fence.prepare:after',
  'target.mutate:begin',
  'stmt:mutate.1:before',
  'stmt:mutate.1:after',
  'stmt:mutate.2:before',
  'stmt:mutate.2:after',
  'target.commit:before',
  'stmt:mutate.3:before',
  'stmt:mutate.3:after',
  'fence.query:before',
  'stmt:query.1:before',
  'stmt:query.1:after',
  'stmt:query.1:before',
  'stmt:query.1:after',
]);

const ids = (boundaries: ReturnType<typeof statementBoundaries>) =>
  boundaries.map((b) => [`${b.at.point}#${b.at.hit}`, ...b.equivalent.map((e) => `${e.point}#${e.hit}`)]);

describe('statement boundaries', () => {
  it('counts an after and the next before once when nothing lies between them', () => {
    expect(ids(statementBoundaries(TRACE))).toEqual([
      ['stmt:prepare.1:before#1'],
      ['stmt:prepare.1:after#1'],
      ['stmt:mutate.1:before#1'],
      ['stmt:mutate.1:after#1', 'stmt:mutate.2:before#1'],
      // A named point between them (target.commit:before) keeps the two apart.
      ['stmt:mutate.2:after#1'],
      ['stmt:mutate.3:before#1'],
      ['stmt:mutate.3:after#1'],
      ['stmt:query.1:before#1'],
      // The same step again is the point's next hit.
      ['stmt:query.1:after#1', 'stmt:query.1:before#2'],
      ['stmt:query.1:after#2'],
    ]);
  });

  it('keeps only the steps asked for', () => {
    expect(ids(statementBoundaries(TRACE, ['query']))).toEqual([
      ['stmt:query.1:before#1'],
      ['stmt:query.1:after#1', 'stmt:query.1:before#2'],
      ['stmt:query.1:after#2'],
    ]);
  });

  it('plans kills on an embedded route, kills and cuts behind a proxy; only mutation kills are sensitive', () => {
    const base = {
      seed: 42,
      traces: { clean: [], statements: TRACE, recovery: new Map(), cleanDurationMs: 0 },
    };
    const embedded = statementFault.plan({ kind: 'statement' }, base);
    expect(embedded.map((d) => d.localId)).toContain('kill/stmt:mutate.1:after#1');
    expect(embedded.every((d) => d.localId.startsWith('kill/'))).toBe(true);
    expect(embedded.filter((d) => d.sensitive).map((d) => d.localId)).toEqual([
      'kill/stmt:mutate.1:before#1',
      'kill/stmt:mutate.1:after#1',
      'kill/stmt:mutate.2:after#1',
      'kill/stmt:mutate.3:before#1',
      'kill/stmt:mutate.3:after#1',
    ]);
    const proxied = statementFault.plan(
      { kind: 'statement' },
      {
        ...base,
        capabilities: {
          proxies: ['target'],
          serverKills: { target: [], journal: [] },
        } as never,
      },
    );
    expect(proxied).toHaveLength(embedded.length * 2);
  });

  it('plans one UNVERIFIED cell when the reference run passed no statement point', () => {
    const drafts = statementFault.plan(
      { kind: 'statement' },
      { seed: 42, traces: { clean: [], recovery: new Map(), cleanDurationMs: 0 } },
    );
    expect(drafts.map((d) => d.localId)).toEqual(['no-statement-points']);
  });
});

describe('statement cells against the unsafe variants', () => {
  it('repeat the mutation kills for the variants that break the target, not for the executor flaws', async () => {
    const { planCells } = await import('../plan/planner.ts');
    const cells = await planCells(
      [{ file: 'statements.yaml', scenario: { name: 'st', faults: [{ kind: 'statement' }] } }],
      {
        variants: ['two-commits', 'io-before-intent', 'lease-blind-cas', 'my-connector-flaw'],
        traces: () => ({ clean: [], statements: TRACE, recovery: new Map(), cleanDurationMs: 0 }),
      },
    );
    const variants = new Set(cells.flatMap((cell) => (cell.variant ? [cell.variant] : [])));
    expect([...variants].sort()).toEqual(['my-connector-flaw', 'two-commits']);
  });
});
