// Creates the example workload's SQLite source: `node examples/seed-embedded.ts [path]`
// (default examples/data/source.db). Re-running it recreates the table with the same rows.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';

/** Rows of `orders`: five on the example's partition day 2026-07-18, three on other days. */
export const EXAMPLE_ORDERS: readonly (readonly [number, string, number, string])[] = [
  [1, '2026-07-17', 10.5, 'eu'],
  [2, '2026-07-18', 20, 'eu'],
  [3, '2026-07-18', 30.25, 'eu'],
  [4, '2026-07-18', 40, 'us'],
  [5, '2026-07-18', 50.75, 'eu'],
  [6, '2026-07-18', 60, 'apac'],
  [7, '2026-07-19', 70, 'eu'],
  [8, '2026-07-19', 80, 'us'],
];

export const EXAMPLE_PARTITION_DAY = '2026-07-18';

/** Writes the source database at `path`, replacing its `orders` table. */
export function seedEmbeddedSource(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  try {
    db.exec('DROP TABLE IF EXISTS orders');
    db.exec('CREATE TABLE orders (id INTEGER NOT NULL, day TEXT NOT NULL, amount REAL, region TEXT)');
    const insert = db.prepare('INSERT INTO orders (id, day, amount, region) VALUES (?, ?, ?, ?)');
    db.exec('BEGIN');
    for (const [id, day, amount, region] of EXAMPLE_ORDERS) insert.run(id, day, amount, region);
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const here = dirname(fileURLToPath(import.meta.url));
  const path = resolve(process.argv[2] ?? resolve(here, 'data/source.db'));
  seedEmbeddedSource(path);
  process.stdout.write(`seeded ${path}: ${EXAMPLE_ORDERS.length} orders\n`);
}
