import { describe, expect, it } from 'vitest';
import { aimKills, killLanding, mutationWindow, parseTimings } from './mutation-window.ts';

const TIMINGS = parseTimings(
  [
    'journal.read:before\t40.0',
    'cas:PREPARED->COMMITTING:after\t180.5',
    'target.mutate:begin\t200.0',
    'target.commit:before\t1200.0',
    'target.commit:after\t1210.0',
    'target.mutate:after\t1215.0',
    '',
  ].join('\n'),
);

describe('mutation window', () => {
  it('runs from target.mutate:begin to the next end point the run passed', () => {
    expect(mutationWindow(TIMINGS)).toEqual({
      begin: 'target.mutate:begin',
      end: 'target.commit:before',
      lengthMs: 1000,
    });
  });

  it('ends at the staged insert on a target without a commit point (a staging target)', () => {
    const timings = parseTimings(
      'target.mutate:begin\t10\ntarget.stage:before\t12\ntarget.stage:after\t70\n',
    );
    expect(mutationWindow(timings)).toMatchObject({ end: 'target.stage:after', lengthMs: 60 });
  });

  it('is null when the run never began or never ended a mutation', () => {
    expect(mutationWindow(parseTimings('journal.read:before\t1\n'))).toBeNull();
    expect(mutationWindow(parseTimings('target.mutate:begin\t1\n'))).toBeNull();
  });

  it('ignores lines that are not point<TAB>number (a kill mid-line)', () => {
    expect(parseTimings('a\t1\nb\t\nc\tx\nd')).toEqual([{ point: 'a', ms: 1 }]);
  });
});

describe('kills aimed inside the window', () => {
  const window = { begin: 'target.mutate:begin', end: 'target.commit:before', lengthMs: 1000 };

  it('draws every kill inside [0, length) after the begin point', () => {
    const kills = aimKills(42, 50, window);
    expect(kills).toHaveLength(50);
    for (const kill of kills) {
      expect(kill.delayMs).toBeGreaterThanOrEqual(0);
      expect(kill.delayMs).toBeLessThan(window.lengthMs);
      expect(kill.fraction).toBeGreaterThanOrEqual(0);
      expect(kill.fraction).toBeLessThan(1);
    }
  });

  it('spreads the kills over the whole window, not one end of it', () => {
    const kills = aimKills(42, 200, window);
    const quarters = [0, 1, 2, 3].map(
      (quarter) => kills.filter((kill) => Math.floor(kill.fraction * 4) === quarter).length,
    );
    for (const count of quarters) expect(count).toBeGreaterThan(25);
  });

  it('a seed gives the same fractions on a machine where the window is longer, delays scale with it', () => {
    const here = aimKills(7, 6, window);
    const slower = aimKills(7, 6, { ...window, lengthMs: 3000 });
    expect(slower.map((kill) => kill.fraction)).toEqual(here.map((kill) => kill.fraction));
    for (const kill of slower) expect(kill.delayMs).toBe(Math.floor(kill.fraction * 3000));
    expect(aimKills(7, 6, window)).toEqual(here);
    expect(aimKills(8, 6, window).map((kill) => kill.fraction)).not.toEqual(
      here.map((kill) => kill.fraction),
    );
  });

  it('an empty window aims every kill at its begin', () => {
    expect(aimKills(42, 3, { ...window, lengthMs: 0 }).map((kill) => kill.delayMs)).toEqual([0, 0, 0]);
  });
});

describe('where a kill landed', () => {
  const window = { begin: 'target.mutate:begin', end: 'target.commit:before' };
  const trace = (...points: string[]) => points.map((point) => ({ point }));

  it('inside: killed after the begin point and before the end point', () => {
    expect(killLanding('SIGKILL', trace('source.read:after', 'target.mutate:begin'), window)).toBe(
      'inside-mutation',
    );
  });

  it('after the mutation: the killed worker had passed the end point', () => {
    const passed = trace('target.mutate:begin', 'target.commit:before', 'target.commit:after');
    expect(killLanding('SIGKILL', passed, window)).toBe('after-mutation');
  });

  it('after exit: the worker had ended on its own before the kill', () => {
    expect(killLanding(null, trace('target.mutate:begin'), window)).toBe('after-exit');
  });
});
