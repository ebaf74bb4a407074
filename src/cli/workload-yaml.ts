import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { DponeError, ERROR_CODES, invalidInput, isDponeError } from '../contracts/errors.ts';
import type { Workload } from '../contracts/workload.ts';
import { refuseUnsafeText, workloadFromPlainValue } from './workload-value.ts';
import { YamlPositions } from './yaml-positions.ts';

// The YAML reader: every refusal carries `file:line:column`. Loaded only when a workload is YAML
// that is not plain JSON, or when a refusal needs a position (workload-file.ts).

/**
 * Parses YAML text and hands its plain value to `validate`; an INVALID_INPUT it throws gets the
 * `file:line:column` of its field. Control and bidirectional-override characters are refused in
 * every key and value first: they would act on the terminal of whoever reads them back.
 */
export function parseYaml<T>(text: string, file: string, validate: (value: unknown) => T): T {
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

/** Parses and validates workload YAML text; `file` is used for positions and relative paths. */
export function parseWorkload(text: string, file: string): Workload {
  return parseYaml(text, file, (value) => workloadFromPlainValue(value, file));
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
