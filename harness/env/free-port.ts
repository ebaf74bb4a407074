import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { createServer } from 'node:net';

/** Asks the kernel for a free TCP port on 127.0.0.1 (bind to port 0, read it, release it). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() =>
        port > 0
          ? resolve(port)
          : reject(new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, 'no free loopback port')),
      );
    });
  });
}
