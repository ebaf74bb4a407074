import { DponeError, ERROR_CODES, EXIT_CODES, isDponeError } from '../contracts/errors.ts';
import { escapeUnsafe, safeJson } from '../contracts/safe-text.ts';
import { readFileSync } from 'node:fs';
import type { CliIO, CommandTable } from './command.ts';
import { HelpRequested } from './args.ts';
import { commandHelp } from './command-help.ts';
import { nearestName } from './nearest-name.ts';
import { journalFlagForms } from './engine-roles.ts';

/** What the recovery commands' shared flags do. */
const RECOVERY_FLAGS: Readonly<Record<string, string>> = {
  'operation-id': 'the operation (dpone identity prints it)',
  journal: `the journal: ${journalFlagForms()}`,
  route: 'also read the target fence of this route',
  json: 'print JSON',
  action: 'the recovery action (plan lists the legal ones)',
  'expected-version': 'the journal version plan showed (compare-and-set)',
  reason: 'why, for the audit record (a ticket)',
  'evidence-ref': 'where the operator’s finding is recorded',
  outcome: 'the outcome the operator established',
  'identity-file': 'the workload, to re-derive the identity',
};

/** The runtime's own commands. The harness adds `certify …` through `main`'s second argument. */
export const RUNTIME_COMMANDS: CommandTable = {
  identity: {
    summary: 'print operation_id and intent_digest of a workload',
    load: async () => (await import('./commands/identity.ts')).run,
    help: {
      flags: { workload: 'the workload file (YAML or JSON)', json: 'print JSON' },
      example: 'dpone identity --workload examples/workload.yaml',
    },
  },
  run: {
    summary: 'run one workload through the recovery-aware executor',
    load: async () => (await import('./commands/run.ts')).run,
    help: {
      flags: {
        workload: 'the workload file (YAML or JSON)',
        journal: `where the journal lives: ${journalFlagForms()}`,
        json: 'print the result as JSON',
        xcom: 'write the result for Airflow here (also DPONE_XCOM_PATH)',
        holder: 'this executor’s name in the journal’s lease',
        policy: 'the trust policy file (else $DPONE_POLICY, else dpone-policy.yaml)',
      },
      example: 'dpone run --workload examples/workload.yaml --journal /tmp/journal.db',
    },
  },
  'shadow report': {
    summary: 'what shadow mode measured: duplicate writes, unknown outcomes, collisions (read-only)',
    load: async () => (await import('./commands/shadow-report.ts')).run,
    help: {
      flags: {
        workload: 'the workload whose journal holds the shadow records',
        journal: 'the journal URL instead of a workload',
        since: 'only attempts from this ISO-8601 date or time on',
        json: 'print the report as JSON (schemas/shadow-report.v1.json)',
      },
      example: 'dpone shadow report --workload examples/workload.yaml --since 2026-07-01',
    },
  },
  'recovery target-commit inspect': {
    summary: 'show an operation’s journal entry and, with --route, its target fence (read-only)',
    load: async () => (await import('./commands/recovery-inspect.ts')).run,
    help: {
      flags: RECOVERY_FLAGS,
      example: 'dpone recovery target-commit inspect --journal /tmp/journal.db --operation-id OPERATION_ID',
    },
  },
  'recovery target-commit plan': {
    summary: 'list the legal recovery actions and recommend one (read-only)',
    load: async () => (await import('./commands/recovery-plan.ts')).run,
    help: {
      flags: RECOVERY_FLAGS,
      example: 'dpone recovery target-commit plan --journal /tmp/journal.db --operation-id OPERATION_ID',
    },
  },
  'recovery target-commit apply': {
    summary: 'apply one recovery action with compare-and-set and an audit record',
    load: async () => (await import('./commands/recovery-apply.ts')).run,
    help: {
      flags: RECOVERY_FLAGS,
      example:
        'dpone recovery target-commit apply --journal /tmp/journal.db --operation-id OPERATION_ID --action resolve-unknown --expected-version 4 --reason TICKET-1',
    },
  },
  'recovery target-commit cleanup': {
    summary: 'remove what an operation that never committed left in its target (audited)',
    load: async () => (await import('./commands/recovery-cleanup.ts')).run,
    help: {
      flags: RECOVERY_FLAGS,
      example: 'dpone recovery target-commit cleanup --journal /tmp/journal.db --operation-id OPERATION_ID',
    },
  },
};

/** The package's version (package.json), for `dpone --version`. */
function version(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

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
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.stdout.write(`${usage(commands)}\nMore: dpone COMMAND --help (its flags and an example).\n`);
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === '--version' || argv[0] === '-V') {
    io.stdout.write(`dpone ${version()} (node ${process.versions.node})\n`);
    return 0;
  }
  const found = resolve(argv, commands);
  if (!found) {
    // The words typed before the first flag, matched against the command names.
    const words = argv.slice(0, argv.findIndex((arg) => arg.startsWith('-')) >>> 0).join(' ');
    const near = nearestName(words || argv[0]!, Object.keys(commands));
    io.stderr.write(
      `${escapeUnsafe(`dpone: ${ERROR_CODES.INVALID_INPUT}: unknown command "${argv.join(' ')}"`)}\n` +
        (near ? `dpone: hint: did you mean "dpone ${near}"?\n` : '') +
        usage(commands),
    );
    return EXIT_CODES[ERROR_CODES.INVALID_INPUT];
  }
  const json = found.rest.includes('--json');
  const spec = commands[found.name]!;
  try {
    const run = await spec.load();
    return await run(found.rest, io);
  } catch (error) {
    // `--help`: the command parsed nothing and ran nothing; its flags are what it would parse.
    if (error instanceof HelpRequested) {
      io.stdout.write(commandHelp(found.name, spec, error.flags));
      return 0;
    }
    return reportError(error, io, json);
  }
}
