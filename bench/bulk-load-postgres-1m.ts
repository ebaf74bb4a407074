// Only the 1,000,000-row PostgreSQL bulk-load entry of `npm run bench` (bench/run.ts), on a
// throw-away local cluster: `node bench/bulk-load-postgres-1m.ts [rows] [repeats]`. Prints the
// BulkLoadRow as JSON (floor, protocol and bare runs alternate in the same run).
import { bulkLoad } from './bulk-load.ts';
import { withLocalPostgres } from './local-postgres.ts';

const rows = Number(process.argv[2] ?? 1_000_000);
const repeats = Number(process.argv[3] ?? 3);
const result = await withLocalPostgres((pg) =>
  bulkLoad({
    sizes: [],
    pgSizes: [rows],
    repeats: () => repeats,
    postgres: { url: pg.journalUrl, password: pg.password },
  }),
);
if (result.unverified) console.log(`postgres: UNVERIFIED (${result.unverified})`);
console.log(JSON.stringify(result.value ?? [], null, 1));
