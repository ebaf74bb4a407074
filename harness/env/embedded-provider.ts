import { DatabaseSync } from 'node:sqlite';
import type { EnvironmentProvider, StartedEnvironment } from './environment.ts';

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
  async start() {
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
