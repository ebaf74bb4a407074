import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { DponeError, ERROR_CODES, invalidInput, isDponeError } from '../contracts/errors.ts';
import type { Workload } from '../contracts/workload.ts';
import { workloadFromValue } from './workload-fields.ts';
import { YamlPositions } from './yaml-positions.ts';

export const DEFAULT_STATE_DIR = 'dpone-state';

/**
 * Reads a workload YAML file (format: src/contracts/workload.ts, schema:
 * src/contracts/workload.schema.json). Every refusal is DPONE_INVALID_INPUT with `location` =
 * `file:line:column` and `field` = the key path at fault. `execution.state_dir` is always set on
 * the result: relative paths resolve against the file's folder, and it defaults to `dpone-state`
 * there.
 */
export async function readWorkloadFile(path: string, cwd: string = process.cwd()): Promise<Workload> {
  const file = resolve(cwd, path);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new DponeError(
      ERROR_CODES.INVALID_INPUT,
      `workload file ${file} cannot be read`,
      { field: '--workload', location: file },
      { cause: error },
    );
  }
  return parseWorkload(text, file);
}

/** Parses and validates workload YAML text; `file` is used for positions and relative paths. */
export function parseWorkload(text: string, file: string): Workload {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const positions = new YamlPositions(doc, lines, file);
  const [syntax] = doc.errors;
  if (syntax) {
    // The parser's own message quotes source text; ours names only the kind of mistake.
    throw new DponeError(
      ERROR_CODES.INVALID_INPUT,
      `malformed YAML: ${syntax.code.toLowerCase().replaceAll('_', ' ')}`,
      { location: positions.at(syntax.pos[0]) },
      { cause: syntax },
    );
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 50 });
  } catch (error) {
    throw new DponeError(
      ERROR_CODES.INVALID_INPUT,
      'malformed YAML: too many or unresolvable aliases',
      { location: positions.at(0) },
      { cause: error },
    );
  }
  let workload: Workload;
  try {
    workload = workloadFromValue(value, file);
  } catch (error) {
    if (!isDponeError(error, ERROR_CODES.INVALID_INPUT)) throw error;
    const field = error.fields.field;
    throw invalidInput(error.message, {
      ...error.fields,
      location: positions.locate(field && field !== '(root)' ? field : ''),
    });
  }
  const stateDir = workload.execution.state_dir ?? DEFAULT_STATE_DIR;
  return {
    ...workload,
    execution: {
      ...workload.execution,
      state_dir: isAbsolute(stateDir) ? stateDir : resolve(dirname(file), stateDir),
    },
  };
}
