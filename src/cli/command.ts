/** What every CLI command gets: its own arguments and the process's streams and environment. */
export interface CliIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

/** A command resolves to its exit code; it throws DponeError for coded failures. */
export type CommandRun = (args: readonly string[], io: CliIO) => Promise<number>;

/** A command is loaded only when invoked, so `dpone identity` never loads a database driver. */
export interface CommandSpec {
  readonly summary: string;
  readonly load: () => Promise<CommandRun>;
}

/** Keyed by the command words, e.g. "run", "recovery target-commit plan", "certify run". */
export type CommandTable = Readonly<Record<string, CommandSpec>>;
