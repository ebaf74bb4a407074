import { readFileSync, statSync } from 'node:fs';
import { MAX_BYTES } from '../../src/cli/bounded-file.ts';
import { join } from 'node:path';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { VERDICTS } from '../verdict.ts';
import type { Evidence } from './evidence-types.ts';
import { EVIDENCE_SCHEMA } from './evidence-types.ts';

function invalid(file: string, why: string, field?: string): DponeError {
  return new DponeError(ERROR_CODES.INVALID_INPUT, `${file} is not a dpone evidence file: ${why}`, {
    location: file,
    ...(field !== undefined ? { field } : {}),
  });
}

type Shape = Record<string, unknown>;

function isObject(value: unknown): value is Shape {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isVerdict(value: unknown): boolean {
  return typeof value === 'string' && (VERDICTS as readonly string[]).includes(value);
}

/** The first structural problem of a cell, or null. */
function cellProblem(cell: unknown, index: number): [string, string] | null {
  const at = `cells[${index}]`;
  if (!isObject(cell)) return [at, 'is not an object'];
  if (typeof cell.id !== 'string') return [`${at}.id`, 'is not a string'];
  if (!isVerdict(cell.verdict)) return [`${at}.verdict`, 'is not PASS, FAIL, UNVERIFIED or UNKNOWN'];
  if (!Array.isArray(cell.checks)) return [`${at}.checks`, 'is not a list'];
  if (!Array.isArray(cell.attempts)) return [`${at}.attempts`, 'is not a list'];
  if (cell.target !== null && !isObject(cell.target))
    return [`${at}.target`, 'is neither an object nor null'];
  if (cell.journal !== null && !isObject(cell.journal))
    return [`${at}.journal`, 'is neither an object nor null'];
  if (isObject(cell.journal) && !Array.isArray(cell.journal.history))
    return [`${at}.journal.history`, 'is not a list'];
  return null;
}

/** Validates the shape `verifyEvidence` relies on; throws INVALID_INPUT naming the field. */
export function validateEvidence(value: unknown, file = 'evidence'): Evidence {
  if (!isObject(value)) throw invalid(file, 'the top level is not a JSON object');
  if (value.schema !== EVIDENCE_SCHEMA) throw invalid(file, `schema is not "${EVIDENCE_SCHEMA}"`, 'schema');
  if (typeof value.run_id !== 'string') throw invalid(file, 'run_id is not a string', 'run_id');
  if (typeof value.seed !== 'number') throw invalid(file, 'seed is not a number', 'seed');
  if (typeof value.route !== 'string') throw invalid(file, 'route is not a string', 'route');
  if (!isVerdict(value.verdict))
    throw invalid(file, 'verdict is not PASS, FAIL, UNVERIFIED or UNKNOWN', 'verdict');
  if (!Array.isArray(value.cells)) throw invalid(file, 'cells is not a list', 'cells');
  if (!Array.isArray(value.sensitivity)) throw invalid(file, 'sensitivity is not a list', 'sensitivity');
  if (value.digest !== undefined && typeof value.digest !== 'string')
    throw invalid(file, 'digest is not a string', 'digest');
  for (const [index, cell] of value.cells.entries()) {
    const problem = cellProblem(cell, index);
    if (problem) throw invalid(file, `${problem[0]} ${problem[1]}`, problem[0]);
  }
  return value as unknown as Evidence;
}

/** A regular file within the evidence cap, so a wrong argument cannot exhaust memory or hang. */
function checkSize(file: string): void {
  const found = statSync(file, { throwIfNoEntry: false });
  if (found?.isFile() === false && !found.isDirectory()) throw invalid(file, 'it is not a regular file');
  if (found?.isFile() && found.size > MAX_BYTES.evidence)
    throw invalid(
      file,
      `it is ${found.size} bytes, over the ${MAX_BYTES.evidence / (1024 * 1024)} MiB an evidence file may be`,
    );
}

/**
 * Reads and validates an evidence file (or a run folder holding `evidence.json`). Rejects with
 * DPONE_INVALID_INPUT and a message naming the file and the field for anything that is not one.
 */
export function readEvidence(path: string): Evidence {
  let text: string;
  let file = path;
  checkSize(file);
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR') {
      throw new DponeError(
        ERROR_CODES.INVALID_INPUT,
        `cannot read evidence file ${path} (${code ?? 'error'})`,
        { location: path },
        { cause: error },
      );
    }
    file = join(path, 'evidence.json');
    checkSize(file);
    try {
      text = readFileSync(file, 'utf8');
    } catch (inner) {
      throw new DponeError(
        ERROR_CODES.INVALID_INPUT,
        `${path} is a folder without evidence.json`,
        { location: path },
        { cause: inner },
      );
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DponeError(
      ERROR_CODES.INVALID_INPUT,
      `${file} is not a dpone evidence file: not JSON`,
      { location: file },
      { cause: error },
    );
  }
  return validateEvidence(value, file);
}
