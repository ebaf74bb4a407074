/** What every CLI command gets: its own arguments and the process's streams and environment. */
export interface CliIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

/** A command resolves to its exit code; it throws DponeError for coded failures. */
export type CommandRun = (args: readonly string[], io: CliIO) => Promise<number>;

/** What `dpone COMMAND --help` prints beside the flags the command parses. */
export interface CommandHelp {
  /** Positional arguments after the command words, e.g. "FILE". */
  readonly args?: string;
  /** What a flag does, by flag name; a flag without an entry is listed with its name alone. */
  readonly flags?: Readonly<Record<string, string>>;
  /** One command line that runs as written from the repository root. */
  readonly example: string;
}

/** A command is loaded only when invoked, so `dpone identity` never loads a database driver. */
export interface CommandSpec {
  readonly summary: string;
  readonly load: () => Promise<CommandRun>;
  readonly help?: CommandHelp;
}

/** Keyed by the command words, e.g. "run", "recovery target-commit plan", "certify run". */
export type CommandTable = Readonly<Record<string, CommandSpec>>;
