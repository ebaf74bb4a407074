import type { IntentData, IntentInput, OperationIdentityInput } from '../contracts/identity.ts';
import type { Workload } from '../contracts/workload.ts';
import { resolve } from 'node:path';
import { MAX_BYTES, readBoundedText } from './bounded-file.ts';
import { identityFromValue } from './workload-fields.ts';
import { refuseUnsafeText, workloadFromPlainValue } from './workload-value.ts';

export { DEFAULT_STATE_DIR } from './workload-value.ts';

/** The two maps `dpone identity` needs: nothing else of the workload is read or checked. */
export interface WorkloadIdentity {
  readonly identity: OperationIdentityInput;
  readonly intent: IntentInput;
  /** What the run reads and writes: part of the intent digest. */
  readonly data: IntentData;
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
 * Reads a workload file (format: src/contracts/workload.ts, schema: schemas/workload.v1.json), YAML
 * or JSON (which is YAML too). Every refusal is DPONE_INVALID_INPUT with `location` =
 * `file:line:column` and `field` = the key path at fault. `execution.state_dir` is always set on the
 * result: relative paths resolve against the file's folder, and it defaults to `dpone-state` there.
 */
export async function readWorkloadFile(path: string, cwd: string = process.cwd()): Promise<Workload> {
  const { file, text } = await readText(path, cwd);
  const fast = acceptedJson(text, (value) => workloadFromPlainValue(value, file));
  if (fast) return fast.value;
  return (await import('./workload-yaml.ts')).parseWorkload(text, file);
}

/** Reads only `identity:` and `intent:` of a workload file (other sections may be absent). */
export async function readWorkloadIdentity(
  path: string,
  cwd: string = process.cwd(),
): Promise<WorkloadIdentity> {
  const { file, text } = await readText(path, cwd);
  const fast = acceptedJson(text, identityFromValue);
  if (fast) return fast.value;
  return (await import('./workload-yaml.ts')).parseYaml(text, file, identityFromValue);
}

/**
 * `file:line:column` of a field of an already validated workload, for errors found later (a
 * state folder that cannot be created, a URL that names a folder); the file itself when it moved.
 */
export async function locateWorkloadField(file: string, field: string): Promise<string> {
  return (await import('./workload-yaml.ts')).locateWorkloadField(file, field);
}

/**
 * The fast path for a workload written as JSON (the harness writes its cells' workloads so; a
 * JSON text means the same as YAML): the value only when JSON.parse reads it, no key repeats and
 * every check accepts it. Anything else goes the YAML way, which says `file:line:column` of what is
 * wrong (and refuses repeated keys, which JSON.parse would silently take the last of). The YAML
 * library is then never loaded: it is most of what a worker's start costs.
 */
function acceptedJson<T>(text: string, validate: (value: unknown) => T): { value: T } | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (membersIn(text) !== membersOf(value)) return undefined;
  try {
    refuseUnsafeText(value, '');
    return { value: validate(value) };
  } catch {
    return undefined;
  }
}

/** Object members written in a JSON text: its `:` outside strings (valid JSON has no other). */
function membersIn(text: string): number {
  let count = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x3a) count++;
  }
  return count;
}

/** Object members in a parsed value: fewer than written means a key was repeated. */
function membersOf(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + membersOf(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  return Object.values(value).reduce((sum: number, item) => sum + 1 + membersOf(item), 0);
}
