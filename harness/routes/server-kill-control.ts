import { connect } from 'node:net';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { ServerControl, ServerSignal } from './server-control.ts';
import { serverAuthority } from './server-seal.ts';
import type { TargetServerAddress, TargetServerControl } from './target-part.ts';

/** How long a killed server may take to stop answering, and a started one to answer. */
const DOWN_WAIT_MS = 10_000;
const UP_WAIT_MS = 60_000;
const POLL_MS = 100;

/** Whether something accepts a TCP connection at `host:port` now (refused, reset, timed out: no). */
export function accepts(server: TargetServerAddress, timeoutMs = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: server.host, port: server.port });
    const done = (answer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function waitFor(server: TargetServerAddress, up: boolean, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if ((await accepts(server)) === up) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * A plug-in's server control as server faults drive it, believed only as far as the harness sees:
 * after `kill` the declared `host:port` must refuse connections (within 10 s), after `start`
 * accept them again (within 60 s). A kill that leaves the server answering would let the released
 * worker commit on a live server and the cell pass without a crash: it throws instead, and the
 * runner records the cell UNKNOWN (never PASS).
 */
export function verifiedServerControl(
  route: string,
  server: TargetServerAddress,
  control: TargetServerControl,
  waits: { readonly downMs: number; readonly upMs: number } = { downMs: DOWN_WAIT_MS, upMs: UP_WAIT_MS },
): ServerControl {
  const where = serverAuthority(server);
  return {
    label: `${route}'s target server`,
    async kill(signal: ServerSignal) {
      await control.kill(signal);
      if (!(await waitFor(server, false, waits.downMs)))
        throw new DponeError(
          ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
          `route ${route}: its plug-in's control.kill(${signal}) returned, but its server at ${where} still accepts connections ${waits.downMs / 1000} s later: the kill did not stop it, so no crash can be certified`,
          { field: 'harness.target.prepare.control' },
        );
    },
    async start() {
      await control.start();
      if (!(await waitFor(server, true, waits.upMs)))
        throw new DponeError(
          ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
          `route ${route}: its plug-in's control.start() returned, but nothing accepts connections at ${where}: the server must start again on the same host:port`,
          { field: 'harness.target.prepare.control' },
        );
    },
  };
}
