import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';

/**
 * The SQLite journal's entries and history length as one comparable line (null: no journal, or no
 * journal tables); states, versions and epochs only, no values. `before-cut`: read-only, which never
 * checkpoints or syncs, so the read makes nothing durable that was not. `after-cut`: as the machine
 * rebooted, by a connection that may recover the file (roll back a hot journal, rebuild the WAL
 * index) the way the retry's own open would.
 */
export function readJournalRows(path: string, when: 'before-cut' | 'after-cut'): string | null {
  if (!existsSync(path)) return null;
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { readOnly: when === 'before-cut' });
    const entries = db
      .prepare(
        'SELECT state, version, lease_epoch, last_epoch FROM dpone_commit_journal ORDER BY operation_id',
      )
      .all() as { state: string; version: number; lease_epoch: number | null; last_epoch: number }[];
    const history = db.prepare('SELECT count(*) AS n FROM dpone_commit_journal_history').get() as {
      n: number;
    };
    if (entries.length === 0) return null;
    const described = entries.map(
      (e) => `${e.state} v${e.version} epoch ${e.lease_epoch ?? '-'}/${e.last_epoch}`,
    );
    return `${described.join(', ')}; ${history.n} history records`;
  } catch (error) {
    // A journal created but without its tables yet holds nothing; any other failure is reported.
    if (/no such table/.test((error as Error).message)) return null;
    throw error;
  } finally {
    if (db?.isOpen) db.close();
  }
}

/**
 * A SQLite target's tables as one comparable line: each table's row count and one digest of every
 * row (values go into the digest only, never into the line). `before-cut` and `after-cut` as for
 * readJournalRows. Null: no file.
 */
export function readTargetTables(path: string, when: 'before-cut' | 'after-cut'): string | null {
  if (!existsSync(path)) return null;
  const db = new DatabaseSync(path, { readOnly: when === 'before-cut' });
  try {
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string }[];
    const hash = createHash('sha256');
    const counts = tables.map(({ name }) => {
      const select = db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`);
      select.setReadBigInts(true); // exact beyond 2^53, as the rows are stored
      const rows = select.all();
      const lines = rows.map((row) =>
        JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
      );
      hash.update(`${name}\n${lines.sort().join('\n')}\n`);
      return `${name} ${rows.length}`;
    });
    return `${counts.join(', ')} rows; sha256:${hash.digest('hex').slice(0, 16)}`;
  } finally {
    db.close();
  }
}
