import { DatabaseSync } from 'node:sqlite';
import type { EnvironmentProvider, StartedEnvironment } from './environment.ts';
import { SERVICE_LABELS } from './services.ts';

function sqliteVersion(): string {
  const db = new DatabaseSync(':memory:');
  try {
    const row = db.prepare('SELECT sqlite_version() AS version').get() as { version: string };
    return row.version;
  } finally {
    db.close();
  }
}

/** The embedded environment: SQLite inside Node, nothing to start, nothing to stop. */
export const provider: EnvironmentProvider = {
  name: 'embedded',
  async start({ services }) {
    if (services.length > 0)
      return {
        status: 'unverified',
        reason: `embedded provider starts no server, and the route needs ${services.map((s) => SERVICE_LABELS[s]).join(', ')}: use --provider local, docker or external`,
      };
    const environment: StartedEnvironment = {
      provider: 'embedded',
      databases: { sqlite: sqliteVersion() },
      toxiproxy: null,
      services: {},
      async [Symbol.asyncDispose]() {},
    };
    return { status: 'started', environment };
  },
};
