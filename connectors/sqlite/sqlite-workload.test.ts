import { describe, expect, it } from 'vitest';
import { EXAMPLE_TEXT, lineOf, workloadRefusal } from '../../src/cli/workload-yaml.test-support.ts';

/** What SQLite's workload rules (sqlite-workload.ts) refuse, on the shipped example (route sqlite). */
const FILE = '/work/w.yaml';

describe('a SQLite workload', () => {
  it('refuses a fence schema on the sqlite route (its fence is always main) at the line of the key', () => {
    const text = EXAMPLE_TEXT.replace('  table: events\n', '  table: events\n  fence_schema: dw\n');
    const error = workloadRefusal(text, FILE);
    expect(error.fields.field).toBe('target.fence_schema');
    expect(error.message).toMatch(/not a setting of route sqlite/);
    expect(error.fields.location).toBe(`${FILE}:${lineOf(text, '  fence_schema: dw')}:3`);
  });

  it('refuses a target table in the temp schema', () => {
    const temp = workloadRefusal(EXAMPLE_TEXT.replace('  table: events', '  table: temp.events'), FILE);
    expect(temp.fields.field).toBe('target.table');
  });
});
