import { DponeError, ERROR_CODES, EXIT_CODES, isDponeError } from '../contracts/errors.ts';
import { escapeUnsafe, safeJson } from '../contracts/safe-text.ts';
import type { CliIO, CommandTable } from './command.ts';

/** The runtime's own commands. The harness adds `certify …` through `main`'s second argument. */
export const RUNTIME_COMMANDS: CommandTable = {
  identity: {
    summary: 'print operation_id and intent_digest of a workload',
    load: async () => (await import('./commands/identity.ts')).run,
  },
  run: {
    summary: 'run one workload through the recovery-aware executor',
    load: async () => (await import('./commands/run.ts')).run,
  },
  'shadow report': {
    summary: 'what shadow mode measured: duplicate writes, unknown outcomes, collisions (read-only)',
    load: async () => (await import('./commands/shadow-report.ts')).run,
  },
  'recovery target-commit inspect': {
    summary: 'show an operation’s journal entry and, with --route, its target fence (read-only)',
    load: async () => (await import('./commands/recovery-inspect.ts')).run,
  },
  'recovery target-commit plan': {
    summary: 'list the legal recovery actions and recommend one (read-only)',
    load: async () => (await import('./commands/recovery-plan.ts')).run,
  },
  'recovery target-commit apply': {
    summary: 'apply one recovery action with compare-and-set and an audit record',
    load: async () => (await import('./commands/recovery-apply.ts')).run,
  },
  'recovery target-commit cleanup': {
    summary: 'remove what an operation that never committed left in its target (audited)',
    load: async () => (await import('./commands/recovery-cleanup.ts')).run,
  },
};

function usage(commands: CommandTable): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const lines = Object.entries(commands).map(
    ([name, spec]) => `  dpone ${name.padEnd(width)}  ${spec.summary}`,
  );
  return `usage:\n${lines.join('\n')}\n`;
}

/** Finds the longest command whose words prefix argv. */
function resolve(
  argv: readonly string[],
  commands: CommandTable,
): { name: string; rest: readonly string[] } | null {
  for (let words = Math.min(argv.length, 3); words >= 1; words--) {
    const name = argv.slice(0, words).join(' ');
    if (commands[name]) return { name, rest: argv.slice(words) };
  }
  return null;
}

/**
 * The kinds and codes of an error's causes (e.g. `DatabaseError 42501`, `Error ECONNREFUSED`),
 * never their messages: a driver's message may quote SQL, a host or a row value.
 */
function causeChain(error: DponeError): string[] {
  const lines: string[] = [];
  let cause = (error as { cause?: unknown }).cause;
  for (let depth = 0; depth < 8 && typeof cause === 'object' && cause !== null; depth++) {
    const { name, code } = cause as { name?: unknown; code?: unknown };
    lines.push(
      [typeof name === 'string' ? name : 'cause', typeof code === 'string' ? code : ''].join(' ').trim(),
    );
    cause = (cause as { cause?: unknown }).cause;
  }
  return lines;
}

/** Reports an error on stderr: JSON when the command was asked for JSON, else one plain line. */
export function reportError(error: unknown, io: CliIO, json: boolean): number {
  const coded: DponeError = isDponeError(error)
    ? (error as DponeError)
    : new DponeError(
        ERROR_CODES.INTERNAL,
        'internal error (details withheld: they may hold sensitive values)',
      );
  // A message may quote a path or a flag as given: control characters are escaped, never printed.
  if (json) io.stderr.write(`${safeJson({ schema: 'dpone.error/v1', error: coded.toJSON() })}\n`);
  else {
    const where = coded.fields.location ?? coded.fields.field;
    const state = coded.fields.sqlstate ? ` [SQLSTATE ${coded.fields.sqlstate}]` : '';
    io.stderr.write(
      escapeUnsafe(`dpone: ${coded.code}: ${coded.message}${where ? ` (${where})` : ''}${state}`) + '\n',
    );
    if (coded.fields.hint) io.stderr.write(escapeUnsafe(`dpone: hint: ${coded.fields.hint}`) + '\n');
  }
  if (io.env.DPONE_DEBUG === '1') {
    if (!isDponeError(error)) io.stderr.write(`${String((error as Error)?.stack)}\n`);
    else for (const line of causeChain(error)) io.stderr.write(`dpone: cause: ${line}\n`);
  }
  return EXIT_CODES[coded.code];
}

export async function main(
  argv: readonly string[],
  extra: CommandTable = {},
  io: CliIO = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() },
): Promise<number> {
  const commands: CommandTable = { ...RUNTIME_COMMANDS, ...extra };
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
    io.stdout.write(usage(commands));
    return argv.length === 0 ? 2 : 0;
  }
  const found = resolve(argv, commands);
  if (!found) {
    io.stderr.write(
      `${escapeUnsafe(`dpone: ${ERROR_CODES.INVALID_INPUT}: unknown command "${argv.join(' ')}"`)}\n${usage(commands)}`,
    );
    return EXIT_CODES[ERROR_CODES.INVALID_INPUT];
  }
  const json = found.rest.includes('--json');
  try {
    const run = await commands[found.name]!.load();
    return await run(found.rest, io);
  } catch (error) {
    return reportError(error, io, json);
  }
}
