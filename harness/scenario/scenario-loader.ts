import { relative } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { MAX_BYTES, readBoundedText } from '../../src/cli/bounded-file.ts';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { LoadedScenario, Scenario } from './scenario-schema.ts';
import { SCENARIO_SCHEMA } from './scenario-schema.ts';
import type { SchemaProblem } from './schema-validator.ts';
import { validateNode } from './schema-validator.ts';

/** A located problem: `file:line:column: key.path: message`. */
export interface LocatedProblem {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly path: string;
  readonly message: string;
}

export function formatProblem(problem: LocatedProblem): string {
  return `${problem.file}:${problem.line}:${problem.column}: ${problem.path}: ${problem.message}`;
}

/**
 * Parses and validates one scenario text. Throws DPONE_INVALID_INPUT naming every problem with
 * file, line, column and key path; the first one is also the error's `location`.
 */
export function parseScenario(text: string, file: string): Scenario {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  const problems: SchemaProblem[] = document.errors.map((error) => ({
    offset: error.pos[0],
    path: '(yaml)',
    // The parser's own message quotes source text; ours names only the kind of mistake.
    message: `malformed YAML: ${error.code.toLowerCase().replaceAll('_', ' ')}`,
  }));
  if (problems.length === 0) validateNode(document.contents, SCENARIO_SCHEMA, '', problems);
  if (problems.length > 0) {
    const shown = relative(process.cwd(), file) || file;
    const located = problems
      .sort((a, b) => a.offset - b.offset)
      .map((problem) => {
        const { line, col } = lines.linePos(problem.offset);
        return { file: shown, line, column: col, path: problem.path, message: problem.message };
      });
    const first = located[0]!;
    throw new DponeError(
      ERROR_CODES.INVALID_INPUT,
      `invalid scenario:\n${located.map(formatProblem).join('\n')}`,
      { location: `${first.file}:${first.line}:${first.column}`, field: first.path },
    );
  }
  return document.toJS() as Scenario;
}

export async function loadScenario(file: string): Promise<LoadedScenario> {
  const text = await readBoundedText(file, {
    what: 'scenario file',
    maxBytes: MAX_BYTES.scenario,
    fields: { field: '--scenario' },
  });
  return { file, scenario: parseScenario(text, file) };
}

/** Loads every file; all files are checked before any error is thrown, so nothing runs on error. */
export async function loadScenarios(files: readonly string[]): Promise<LoadedScenario[]> {
  const results = await Promise.allSettled(files.map((file) => loadScenario(file)));
  const failures = results.filter((result) => result.status === 'rejected');
  if (failures.length > 0) throw (failures[0] as PromiseRejectedResult).reason;
  const loaded = results.map((result) => (result as PromiseFulfilledResult<LoadedScenario>).value);
  const names = new Map<string, string>();
  for (const { file, scenario } of loaded) {
    const other = names.get(scenario.name);
    if (other)
      throw new DponeError(ERROR_CODES.INVALID_INPUT, `scenario name "${scenario.name}" is used twice`, {
        location: file,
        field: 'name',
      });
    names.set(scenario.name, file);
  }
  return loaded;
}
