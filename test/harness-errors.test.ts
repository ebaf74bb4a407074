import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isHarnessFile } from './harness-layers.ts';
import { importGraph } from './import-graph.ts';

/**
 * Issue 35 item 7: a harness failure names what failed. The evidence shows only our own errors'
 * messages (a library's may carry row values or a password), so the harness's own code throws
 * DponeError with a stable code and a message that names the step, never a plain Error that the
 * evidence would show as "Error (details withheld)". (A TypeError is left for a broken invariant:
 * a bug of ours, not a step of a cell.)
 */
describe('the harness’s own errors', () => {
  it("are DponeErrors, never plain Errors, in every production file of harness/ and the engines' harness parts", () => {
    const files = [...importGraph(['harness', 'connectors']).keys()].filter(isHarnessFile);
    expect(files.some((file) => file.startsWith('connectors/'))).toBe(true);
    const plain = files.filter((file) => /\bthrow new Error\(/.test(readFileSync(file, 'utf8')));
    expect(plain).toEqual([]);
  });
});
