import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { invalidInput } from '../contracts/errors.ts';
import { nearestName } from './nearest-name.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** One flag a command accepts, as its help lists it. */
export interface FlagInfo {
  readonly name: string;
  readonly takesValue: boolean;
  readonly repeatable: boolean;
}

/**
 * `--help` (or `-h`) among a command's arguments: the command does nothing and the CLI prints its
 * help, listing the flags the command really parses (so a flag added to a command is in its help).
 */
export class HelpRequested extends Error {
  readonly flags: readonly FlagInfo[];
  constructor(flags: readonly FlagInfo[]) {
    super('help requested');
    this.flags = flags;
  }
}

/**
 * Strict flag parsing for every command: an unknown flag, a missing value or a stray positional
 * argument is bad input (exit 2) naming the flag.
 */
export function parseFlags<O extends Options>(
  args: readonly string[],
  options: O,
  { positionals = false }: { positionals?: boolean } = {},
) {
  if (args.includes('--help') || args.includes('-h'))
    throw new HelpRequested(
      Object.entries(options).map(([name, option]) => ({
        name,
        takesValue: option.type === 'string',
        repeatable: option.multiple === true,
      })),
    );
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: positionals });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const flag = /'(--?[\w-]+)/.exec(message)?.[1];
    // An unknown flag that is a typo of a known one: say which (the hint line).
    const near =
      flag && /^Unknown option/.test(message)
        ? nearestName(flag.replace(/^-+/, ''), Object.keys(options))
        : null;
    throw invalidInput(`bad arguments: ${message.replace(/\. To specify.*$/s, '')}`, {
      ...(flag ? { field: flag } : {}),
      ...(near ? { hint: `did you mean --${near}? (dpone COMMAND --help lists the flags)` } : {}),
    });
  }
}

/** A flag that must be present. */
export function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined || value === '') throw invalidInput(`${flag} is required`, { field: flag });
  return value;
}
