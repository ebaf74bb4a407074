import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withSession } from './mariadb-database.ts';
import { skipReason } from './fixtures/mariadb-kit-factory.ts';
import { MariadbServer } from './mariadb-server.ts';

describe.skipIf(skipReason() !== undefined)('MariadbServer.start', () => {
  it('starts eight servers at once, each keeping its temporary tables in its own folder', async () => {
    // Bootstraps that shared the OS's temporary folder failed now and then when several started at
    // once (mariadb-install-db: "Unknown table 'mysql.tmp_user_sys'"; 8 of 24 here, 8 at a time),
    // which made server-kill cells UNKNOWN in CI.
    const started = await Promise.allSettled(Array.from({ length: 8 }, () => MariadbServer.start()));
    const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      expect(started.filter((s) => s.status === 'rejected')).toEqual([]);
      for (const server of servers) {
        const { rows } = await withSession(server.address('mysql'), (session) =>
          session.runValues('SELECT @@tmpdir AS dir'),
        );
        expect(rows[0]?.dir).toBe(join(server.dir, 'tmp'));
      }
    } finally {
      await Promise.all(servers.map((server) => server[Symbol.asyncDispose]()));
    }
  }, 120_000);
});
