import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dpone, exampleCopy } from './example-workload.test-support.ts';

const vectors = JSON.parse(
  readFileSync(new URL('../../contracts/identity-vectors.json', import.meta.url), 'utf8'),
) as { vectors: { name: string; operation_id: string; intent_digest: string }[] };
const basic = vectors.vectors.find((vector) => vector.name === 'basic')!;

describe('dpone identity (real CLI process)', () => {
  const example = exampleCopy();

  it('prints the ids of the published basic vector, as JSON and as two lines', async () => {
    const json = await dpone(['identity', '--workload', example.workload, '--json'], { cwd: example.dir });
    expect(json.exitCode).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      schema: 'dpone.identity/v1',
      operation_id: basic.operation_id,
      intent_digest: basic.intent_digest,
    });
    const plain = await dpone(['identity', '--workload', 'workload.yaml'], { cwd: example.dir });
    expect(plain.exitCode).toBe(0);
    expect(plain.stdout).toBe(`operation_id: ${basic.operation_id}\nintent_digest: ${basic.intent_digest}`);
  });

  it('gives the same operation id for the interval written with another UTC offset', async () => {
    const shifted = example.variant('shifted.yaml', (text) =>
      text
        .replace("start: '2026-07-18T00:00:00Z'", "start: '2026-07-18T02:00+02:00'")
        .replace("end: '2026-07-19T00:00:00Z'", "end: '2026-07-18T19:00:00-05:00'"),
    );
    const result = await dpone(['identity', '--workload', shifted, '--json'], { cwd: example.dir });
    expect(JSON.parse(result.stdout).operation_id).toBe(basic.operation_id);
  });

  it.each([
    [
      'malformed YAML',
      (text: string) => text.replace('  dag_id: orders_daily', ' dag_id: [orders_daily'),
      'dag_id',
    ],
    [
      'an unknown key',
      (text: string) => text.replace(/^route: .*$/m, (route) => `${route}\nretries: 3`),
      'retries: 3',
    ],
    [
      'the forbidden field try_number',
      (text: string) =>
        text.replace('  workload_id: orders_to_events', '  workload_id: orders_to_events\n  try_number: 2'),
      'try_number',
    ],
    ['a missing field', (text: string) => text.replace("  schema_fingerprint: 'schema:v1'\n", ''), 'intent:'],
  ])('refuses %s with exit 2 and file:line in stderr', async (label, edit, lineText) => {
    const file = example.variant(`${label.replace(/\W+/g, '-')}.yaml`, edit);
    const line =
      readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((text) => text.includes(lineText)) + 1;
    const result = await dpone(['identity', '--workload', file], { cwd: example.dir });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('DPONE_INVALID_INPUT');
    expect(result.stderr).toContain(`${file}:${line}:`);
  });

  it('puts the error as JSON on stderr with --json, naming the field and its location', async () => {
    const file = example.variant('pod.yaml', (text) =>
      text.replace(
        '  workload_id: orders_to_events',
        '  workload_id: orders_to_events\n  pod_name: worker-1',
      ),
    );
    const result = await dpone(['identity', '--workload', file, '--json'], { cwd: example.dir });
    expect(result.exitCode).toBe(2);
    const { error } = JSON.parse(result.stderr) as { error: Record<string, unknown> };
    expect(error).toMatchObject({ code: 'DPONE_INVALID_INPUT', field: 'identity.pod_name', exitCode: 2 });
    expect(error.location).toMatch(new RegExp(`^${file}:\\d+:3$`));
  });

  it('refuses an unknown flag and a missing --workload with exit 2', async () => {
    const unknown = await dpone(['identity', '--workload', example.workload, '--try-number', '2'], {
      cwd: example.dir,
    });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('--try-number');
    const missing = await dpone(['identity'], { cwd: example.dir });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--workload');
  });
});
