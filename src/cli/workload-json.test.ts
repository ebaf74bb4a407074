import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ERROR_CODES, isDponeError } from '../contracts/errors.ts';
import { readWorkloadFile, readWorkloadIdentity } from './workload-file.ts';
import { parseWorkload } from './workload-yaml.ts';

const EXAMPLE = new URL('../../examples/workload.yaml', import.meta.url).pathname;
const exampleText = readFileSync(EXAMPLE, 'utf8');
const value = parse(exampleText) as Record<string, Record<string, unknown>>;

function written(name: string, text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dpone-json-')), name);
  writeFileSync(file, text);
  return file;
}

async function refusal(
  file: string,
): Promise<{ code: string; location: string | undefined; field: string | undefined }> {
  try {
    await readWorkloadFile(file);
  } catch (error) {
    if (!isDponeError(error)) throw error;
    return { code: error.code, location: error.fields.location, field: error.fields.field };
  }
  throw new Error('accepted');
}

// A workload written as JSON is read without the YAML library (workload-file.ts). It must mean
// exactly what the same text means as YAML, and every refusal must still say where.
describe('a workload written as JSON', () => {
  it('reads to the same workload as its YAML form', async () => {
    const file = written('w.yaml', JSON.stringify(value, null, 2));
    expect(await readWorkloadFile(file)).toEqual(parseWorkload(exampleText, file));
    expect(await readWorkloadIdentity(file)).toEqual(
      await readWorkloadIdentity(written('w.yaml', exampleText)),
    );
  });

  it('a repeated key is refused with its line, as in YAML (JSON.parse alone would keep the last)', async () => {
    const route = `"route": ${JSON.stringify(value.route)}`;
    const text = JSON.stringify(value, null, 2).replace(route, `${route},\n  ${route}`);
    const file = written('dup.json', text);
    const found = await refusal(file);
    expect(found.code).toBe(ERROR_CODES.INVALID_INPUT);
    expect(found.location).toMatch(new RegExp(`^${file}:\\d+:\\d+$`));
  });

  it('a wrong field is refused with the field and its file:line:column', async () => {
    const text = JSON.stringify(
      { ...value, intent: { ...value['intent'], normalized_load_strategy: 'upsert' } },
      null,
      2,
    );
    const file = written('bad.json', text);
    const rows = text.split('\n');
    const line = rows.findIndex((row) => row.includes('"upsert"')) + 1;
    const column = rows[line - 1]!.indexOf('"normalized_load_strategy"') + 1;
    const found = await refusal(file);
    expect(found.code).toBe(ERROR_CODES.INVALID_INPUT);
    expect(found.field).toBe('intent.normalized_load_strategy');
    expect(found.location).toBe(`${file}:${line}:${column}`);
  });

  it('a colon or quote inside a string value is not taken for a key', async () => {
    const text = JSON.stringify(
      { ...value, identity: { ...value['identity'], deployment_id: 'prod:eu "1" \\\\ {x: 1}' } },
      null,
      2,
    );
    const workload = await readWorkloadFile(written('w.json', text));
    expect(workload.identity.deployment_id).toBe('prod:eu "1" \\\\ {x: 1}');
  });
});
