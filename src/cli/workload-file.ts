import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { DponeError, ERROR_CODES, invalidInput, isDponeError } from '../contracts/errors.ts';
import type { IntentInput, OperationIdentityInput } from '../contracts/identity.ts';
import { firstUnsafeCharacter } from '../contracts/safe-text.ts';
import type { Workload } from '../contracts/workload.ts';
import { MAX_BYTES, readBoundedText } from './bounded-file.ts';
import { checkWorkload } from './workload-checks.ts';
import { identityFromValue, workloadFromValue } from './workload-fields.ts';
import { YamlPositions } from './yaml-positions.ts';

export const DEFAULT_STATE_DIR = 'dpone-state';

/** The two maps `dpone identity` needs: nothing else of the workload is read or checked. */
export interface WorkloadIdentity {
  readonly identity: OperationIdentityInput;
  readonly intent: IntentInput;
}

async function readText(path: string, cwd: string): Promise<{ file: string; text: string }> {
  const file = resolve(cwd, path);
  const text = await readBoundedText(file, {
    what: 'workload file',
    maxBytes: MAX_BYTES.workload,
    fields: { field: '--workload' },
  });
  return { file, text };
}

/**
 * Reads a workload YAML file (format: src/contracts/workload.ts, schema:
 * schemas/workload.v1.json). Every refusal is DPONE_INVALID_INPUT with `location` =
 * `file:line:column` and `field` = the key path at fault. `execution.state_dir` is always set on
 * the result: relative paths resolve against the file's folder, and it defaults to `dpone-state`
 * there.
 */
export async function readWorkloadFile(path: string, cwd: string = process.cwd()): Promise<Workload> {
  const { file, text } = await readText(path, cwd);
  return parseWorkload(text, file);
}

/** Reads only `identity:` and `intent:` of a workload file (other sections may be absent). */
export async function readWorkloadIdentity(
  path: string,
  cwd: string = process.cwd(),
): Promise<WorkloadIdentity> {
  const { file, text } = await readText(path, cwd);
  return parseYaml(text, file, (value) => identityFromValue(value));
}

/**
 * Parses YAML text and hands its plain value to `validate`; an INVALID_INPUT it throws gets the
 * `file:line:column` of its field. Control and bidirectional-override characters are refused in
 * every key and value first: they would act on the terminal of whoever reads them back.
 */
function parseYaml<T>(text: string, file: string, validate: (value: unknown) => T): T {
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
  try {
    refuseUnsafeText(value, '');
    return validate(value);
  } catch (error) {
    if (!isDponeError(error, ERROR_CODES.INVALID_INPUT)) throw error;
    const field = error.fields.field;
    throw invalidInput(error.message, {
      ...error.fields,
      location: positions.locate(field && field !== '(root)' ? field : ''),
    });
  }
}

function refuseUnsafeText(value: unknown, path: string): void {
  if (typeof value === 'string') {
    const found = firstUnsafeCharacter(value);
    if (found)
      throw invalidInput(
        `${path || 'the workload'} holds the control character ${found}; control, C1 and bidirectional-override characters are refused`,
        { field: path || '(root)' },
      );
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => refuseUnsafeText(item, `${path}[${index}]`));
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (firstUnsafeCharacter(key))
        throw invalidInput(`a key under ${path || 'the top level'} holds a control character`, {
          field: path || '(root)',
        });
      refuseUnsafeText(item, at);
    }
  }
}

/** Parses and validates workload YAML text; `file` is used for positions and relative paths. */
export function parseWorkload(text: string, file: string): Workload {
  const workload = parseYaml(text, file, (value) => checkWorkload(workloadFromValue(value, file)));
  const stateDir = workload.execution.state_dir ?? DEFAULT_STATE_DIR;
  return {
    ...workload,
    execution: {
      ...workload.execution,
      state_dir: isAbsolute(stateDir) ? stateDir : resolve(dirname(file), stateDir),
    },
  };
}

/**
 * `file:line:column` of a field of an already validated workload, for errors found later (a
 * state folder that cannot be created, a URL that names a folder); the file itself when it moved.
 */
export function locateWorkloadField(file: string, field: string): string {
  try {
    const lines = new LineCounter();
    const doc = parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines, prettyErrors: false });
    return new YamlPositions(doc, lines, file).locate(field);
  } catch {
    return file;
  }
}
