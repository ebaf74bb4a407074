import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeXcom } from './xcom-file.ts';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

describe('writeXcom', () => {
  it('writes the result as one JSON document, creating the folder', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dpone-xcom-')), 'airflow/xcom/return.json');
    const stderr = capture();
    expect(await writeXcom(path, { operation_id: 'sha256:x', status: 'committed' }, stderr.stream)).toBe(
      true,
    );
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ operation_id: 'sha256:x', status: 'committed' });
    expect(stderr.text()).toBe('');
  });

  it('reports a write failure on stderr as secondary and never throws', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-xcom-'));
    writeFileSync(join(dir, 'xcom'), 'a file where the folder should be');
    const stderr = capture();
    expect(await writeXcom(join(dir, 'xcom/return.json'), { status: 'committed' }, stderr.stream)).toBe(
      false,
    );
    expect(stderr.text()).toMatch(/^dpone: secondary failure: .* the outcome is unchanged\n$/);
  });
});
