// `npm run bench`: measures what the protocol costs a pipeline and how fast the harness certifies,
// each figure as a ratio against a baseline measured in the same run, and writes
// bench/results.json with the machine's description.
import { writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { harnessCost } from './harness-cost.ts';
import { journalThroughput } from './journal-throughput.ts';
import { protocolOverhead } from './protocol-overhead.ts';
import { withLocalPostgres } from './local-postgres.ts';

const quick = process.argv.includes('--quick');
const machine = {
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  cpus: availableParallelism(),
  cpu_model: cpus()[0]?.model ?? 'unknown',
  memory_gb: Math.round(totalmem() / 2 ** 30),
  date: new Date().toISOString(),
};
console.log(
  `machine: ${machine.cpus} cpus (${machine.cpu_model}), ${machine.memory_gb} GiB, node ${machine.node}`,
);

const overhead = await protocolOverhead({ repeats: quick ? 3 : 7, sizes: [1, 10_000] });
const postgres = await withLocalPostgres(async (pg) => ({
  overhead: await pg.protocolOverhead({ repeats: quick ? 3 : 7, sizes: [1, 10_000] }),
  throughput: await journalThroughput({
    opsPerClient: quick ? 100 : 300,
    repeats: 3,
    postgresUrl: pg.journalUrl,
  }),
}));
const throughput = [
  ...(await journalThroughput({ opsPerClient: quick ? 100 : 300, repeats: 3 })),
  ...(postgres.value?.throughput.filter((row) => row.database === 'postgres') ?? []),
];
const allOverhead = [...overhead, ...(postgres.value?.overhead ?? [])];
const oneOp = overhead.find((row) => row.rows === 1)?.protocol_ms ?? 0;
const harness = await harnessCost({ protocolMs: oneOp });

console.log('\nprotocol overhead (executor operation vs bare transaction, same database, same run)');
console.table(allOverhead.map(({ protocol_calls: _c, ...row }) => row));
console.log('round trips of one protocol operation:', JSON.stringify(overhead[0]?.protocol_calls));
console.log('\njournal throughput (CAS through the adapter vs raw conditional UPDATE loop)');
console.table(throughput);
console.log('\nharness cost');
console.table([{ ...harness, races: undefined }]);
console.table(harness.races);
if (postgres.unverified) console.log(`postgres: UNVERIFIED (${postgres.unverified})`);

const results = {
  machine,
  overhead: allOverhead,
  throughput,
  harness,
  postgres_unverified: postgres.unverified ?? null,
};
await writeFile(join(import.meta.dirname, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log('\nwritten bench/results.json');
