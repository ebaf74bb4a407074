import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { invalidInput } from '../contracts/errors.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Strict flag parsing for every command: an unknown flag, a missing value or a stray positional
 * argument is bad input (exit 2) naming the flag.
 */
export function parseFlags<O extends Options>(
  args: readonly string[],
  options: O,
  { positionals = false }: { positionals?: boolean } = {},
) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: positionals });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const flag = /'(--?[\w-]+)/.exec(message)?.[1];
    throw invalidInput(
      `bad arguments: ${message.replace(/\. To specify.*$/s, '')}`,
      flag ? { field: flag } : {},
    );
  }
}

/** A flag that must be present. */
export function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined || value === '') throw invalidInput(`${flag} is required`, { field: flag });
  return value;
}
