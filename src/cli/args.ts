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
 * A repeatable flag takes several values after it, as a shell glob expands them (`--scenario
 * scenarios/*.yaml` → `--scenario a.yaml b.yaml`): in a command without positional arguments,
 * the arguments after such a flag's value that are not flags are more values of it.
 */
function spreadRepeatable(args: readonly string[], options: Options): string[] {
  const repeatable = new Set(
    Object.entries(options)
      .filter(([, option]) => option.type === 'string' && option.multiple === true)
      .map(([name]) => `--${name}`),
  );
  const out: string[] = [];
  let current: string | null = null;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') {
      out.push(...args.slice(index));
      break;
    }
    if (arg.startsWith('-')) {
      const name = arg.split('=')[0]!;
      current = repeatable.has(name) ? name : null;
      out.push(arg);
      // `--flag value`: the value follows; `--flag=value` carries it.
      if (current !== null && !arg.includes('=') && index + 1 < args.length) out.push(args[++index]!);
      continue;
    }
    out.push(...(current !== null ? [current, arg] : [arg]));
  }
  return out;
}

/**
 * Strict flag parsing for every command: an unknown flag, a missing value or a stray positional
 * argument is bad input (exit 2) naming the flag. A repeatable flag takes several values after
 * it (`--scenario a.yaml b.yaml`), or repeats (`--scenario a.yaml --scenario b.yaml`).
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
    const spread = positionals ? [...args] : spreadRepeatable(args, options);
    return parseArgs({ args: spread, options, strict: true, allowPositionals: positionals });
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
