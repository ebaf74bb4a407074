import { invalidInput } from '../contracts/errors.ts';
import { firstUnsafeCharacter } from '../contracts/safe-text.ts';
import type { Workload } from '../contracts/workload.ts';
import { dirname, isAbsolute, resolve } from 'node:path';
import { checkWorkload } from './workload-checks.ts';
import { workloadFromValue } from './workload-fields.ts';

export const DEFAULT_STATE_DIR = 'dpone-state';

/**
 * A workload's plain value (from YAML or JSON text, its text already refused by refuseUnsafeText)
 * checked and completed: `execution.state_dir` is
 * always set, relative paths resolve against the file's folder, and it defaults to `dpone-state` there.
 */
export function workloadFromPlainValue(value: unknown, file: string): Workload {
  const workload = checkWorkload(workloadFromValue(value, file));
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
 * Control and bidirectional-override characters are refused in every key and value: they would act
 * on the terminal of whoever reads them back.
 */
export function refuseUnsafeText(value: unknown, path: string): void {
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
