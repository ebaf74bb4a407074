import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import { parseWorkload } from './workload-yaml.ts';

/**
 * Test support for workload files read by parseWorkload: the shipped example (examples/workload.yaml,
 * an embedded route) and what a refusal is. The loader's own tests and each engine folder's tests of
 * its workload rules share it.
 */
export const EXAMPLE = new URL('../../examples/workload.yaml', import.meta.url).pathname;
export const EXAMPLE_TEXT = readFileSync(EXAMPLE, 'utf8');

/** The example's `route:` line as written (an engine alias). */
export const EXAMPLE_ROUTE_LINE = /^route: .+$/m.exec(EXAMPLE_TEXT)![0];

/** The bad-input error parseWorkload refuses `text` (read as `file`) with. */
export function workloadRefusal(text: string, file: string): DponeError {
  try {
    parseWorkload(text, file);
  } catch (error) {
    expect(error).toBeInstanceOf(DponeError);
    expect((error as DponeError).code).toBe(ERROR_CODES.INVALID_INPUT);
    return error as DponeError;
  }
  throw new Error('expected the workload to be refused');
}

/** Line (1-based) of the first line of `text` that contains `needle`. */
export function lineOf(text: string, needle: string): number {
  return text.split('\n').findIndex((line) => line.includes(needle)) + 1;
}
