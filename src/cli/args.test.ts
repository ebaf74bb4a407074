import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/errors.ts';
import { parseFlags } from './args.ts';

const FLAGS = {
  scenario: { type: 'string', multiple: true },
  route: { type: 'string' },
  gate: { type: 'boolean' },
} as const;

describe('parseFlags', () => {
  it('a repeatable flag takes several values after it, as a shell glob expands them', () => {
    expect(parseFlags(['--scenario', 'a.yaml', 'b.yaml', '--route', 'r'], FLAGS).values).toEqual({
      scenario: ['a.yaml', 'b.yaml'],
      route: 'r',
    });
    expect(parseFlags(['--scenario=a.yaml', 'b.yaml', '--gate'], FLAGS).values.scenario).toEqual([
      'a.yaml',
      'b.yaml',
    ]);
    // Repeating the flag still works, and both forms mix.
    expect(
      parseFlags(['--scenario', 'a.yaml', '--gate', '--scenario', 'b.yaml', 'c.yaml'], FLAGS).values.scenario,
    ).toEqual(['a.yaml', 'b.yaml', 'c.yaml']);
  });

  it('a stray argument after a single-value or boolean flag is still bad input naming it', () => {
    for (const args of [
      ['--route', 'r', 'extra'],
      ['--gate', 'extra'],
      ['extra', '--scenario', 'a.yaml'],
    ])
      expect(() => parseFlags(args, FLAGS)).toThrow(
        expect.objectContaining({
          code: ERROR_CODES.INVALID_INPUT,
          message: expect.stringContaining("'extra'"),
        }),
      );
  });

  it('a command with positional arguments keeps them positional', () => {
    const { positionals, values } = parseFlags(['--scenario', 'a.yaml', 'b.yaml'], FLAGS, {
      positionals: true,
    });
    expect(values.scenario).toEqual(['a.yaml']);
    expect(positionals).toEqual(['b.yaml']);
  });
});
