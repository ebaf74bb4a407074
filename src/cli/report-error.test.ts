import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { CliIO } from './command.ts';
import { reportError } from './main.ts';

function io(env: NodeJS.ProcessEnv = {}): CliIO & { text(): string } {
  let text = '';
  const stream = { write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WritableStream;
  return { stdout: stream, stderr: stream, env, cwd: '/', text: () => text };
}

const driver = Object.assign(new Error('permission denied: INSERT INTO t VALUES (s3cret-row)'), {
  name: 'DatabaseError',
  code: '42501',
  severity: 'ERROR',
});
const error = new DponeError(
  ERROR_CODES.PERMISSION_DENIED,
  'the server target denied a privilege; a retry cannot fix this',
  { sqlstate: '42501', hint: 'the target role needs INSERT on table dw.events' },
  { cause: driver },
);

describe('reportError', () => {
  it('shows the SQLSTATE and the hint on the plain line, and the exit code of the cause', () => {
    const out = io();
    expect(reportError(error, out, false)).toBe(31);
    expect(out.text()).toBe(
      'dpone: DPONE_PERMISSION_DENIED: the server target denied a privilege; a retry cannot fix this [SQLSTATE 42501]\n' +
        'dpone: hint: the target role needs INSERT on table dw.events\n',
    );
  });

  it('carries both in JSON', () => {
    const out = io();
    reportError(error, out, true);
    expect(JSON.parse(out.text()).error).toMatchObject({
      sqlstate: '42501',
      hint: expect.any(String),
      exitCode: 31,
    });
  });

  it('with DPONE_DEBUG=1 names the causes by kind and code, never by message', () => {
    const out = io({ DPONE_DEBUG: '1' });
    reportError(error, out, false);
    expect(out.text()).toContain('dpone: cause: DatabaseError 42501\n');
    expect(out.text()).not.toContain('s3cret');
  });
});
