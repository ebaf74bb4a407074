import { readFile } from 'node:fs/promises';
import { deriveSeed, seededRandom } from '../data/seeded-random.ts';

/** The point a target passes right before it opens its guarded write (every connector has it). */
export const MUTATION_BEGIN = 'target.mutate:begin';
/**
 * Where the rows have been written: the first of these after MUTATION_BEGIN (a transactional
 * target's commit; a staging target's staged insert; else the executor's own end of the mutation).
 */
const MUTATION_END = ['target.commit:before', 'target.stage:after', 'target.mutate:after'] as const;

/** One line of a worker's timings file (FaultPlan.timings): a point and its time on the worker's clock. */
export interface PointTime {
  readonly point: string;
  readonly ms: number;
}

/**
 * The stretch of a clean run in which the target writes the rows: from its MUTATION_BEGIN to the
 * next end point. Measured by the worker itself in the reference run; it only AIMS kills, no
 * verdict reads it.
 */
export interface MutationWindow {
  readonly begin: string;
  readonly end: string;
  /** How long the stretch lasted in the reference run (ms, >= 0). */
  readonly lengthMs: number;
}

/** One kill aimed inside the window: a seeded fraction of it, and that fraction in ms after its begin. */
export interface AimedKill {
  readonly fraction: number;
  readonly delayMs: number;
}

export function parseTimings(text: string): PointTime[] {
  return text
    .split('\n')
    .map((line) => /^([^\t]+)\t([0-9]+(?:\.[0-9]+)?)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ point: match[1]!, ms: Number(match[2]) }));
}

export async function readTimings(file: string): Promise<PointTime[]> {
  try {
    return parseTimings(await readFile(file, 'utf8'));
  } catch {
    return [];
  }
}

/** The window of a clean run's timings, or null when the run never began a mutation. */
export function mutationWindow(timings: readonly PointTime[]): MutationWindow | null {
  const begin = timings.findIndex((time) => time.point === MUTATION_BEGIN);
  if (begin < 0) return null;
  const end = timings.findIndex(
    (time, index) => index > begin && (MUTATION_END as readonly string[]).includes(time.point),
  );
  if (end < 0) return null;
  return {
    begin: MUTATION_BEGIN,
    end: timings[end]!.point,
    lengthMs: Math.max(0, Math.round(timings[end]!.ms - timings[begin]!.ms)),
  };
}

/**
 * `count` kills drawn uniformly inside the window: kill i is fraction f_i of it after its begin.
 * The fractions depend on the seed and i only, so a seed reproduces the same places in the
 * window on any machine, even where the window itself is longer or shorter.
 */
export function aimKills(seed: number, count: number, window: MutationWindow): AimedKill[] {
  const kills: AimedKill[] = [];
  for (let index = 1; index <= count; index++) {
    // Rounded first, so the evidence's fraction alone gives back the delay.
    const fraction =
      Math.floor(seededRandom(deriveSeed(seed, `crash-mutation-${index}`))() * 10_000) / 10_000;
    kills.push({ fraction, delayMs: Math.floor(fraction * window.lengthMs) });
  }
  return kills;
}

/** Where a mutation-window kill landed (the evidence's `landed`). */
export type KillLanding = 'inside-mutation' | 'after-mutation' | 'after-exit';

/**
 * From the killed worker's own trace: inside while it had passed the window's begin and not its
 * end; after-exit when the SIGKILL found the worker already gone (it ended on its own).
 */
export function killLanding(
  signal: string | null,
  trace: readonly { readonly point: string }[],
  window: { readonly begin: string; readonly end: string },
): KillLanding {
  if (signal !== 'SIGKILL') return 'after-exit';
  const begin = trace.findIndex((at) => at.point === window.begin);
  if (begin < 0) return 'after-exit';
  return trace.slice(begin + 1).some((at) => at.point === window.end) ? 'after-mutation' : 'inside-mutation';
}
