import type { ClickHouseEndpoint } from './env/clickhouse-endpoint.ts';
import { clickhouseHttp, clickhouseRows } from './env/clickhouse-endpoint.ts';
import type { FenceLocationReading, FenceReading } from '../../../harness/evidence/evidence-types.ts';
import type { FenceOperations } from '../../../harness/routes/route.ts';
import { maskedDigest } from '../../../harness/routes/state-fingerprint.ts';

const FENCE = '_dpone_fence';
/** Where `rename` puts the fence log: out of the runtime's reach, still readable by the harness. */
const RENAMED_FENCE = '_dpone_fence_lost';

const q = (name: string) => `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
const s = (value: string) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** Where a cell's ClickHouse target lives, as the harness reaches it (straight, never the proxy). */
export interface ClickHouseSite {
  readonly endpoint: ClickHouseEndpoint;
  readonly database: string;
  readonly table: string;
}

async function tableExists(site: ClickHouseSite, table: string): Promise<boolean> {
  const [row] = await clickhouseRows<{ n: string }>(
    site.endpoint,
    `SELECT count() AS n FROM system.tables WHERE database = ${s(site.database)} AND name = ${s(table)}`,
    'read the fence',
  );
  return Number(row?.n ?? 0) > 0;
}

/**
 * What one fence log claims for one operation, read by the harness itself: `committed` when the log
 * records a commit, or when the target holds rows tagged with the operation and an epoch this log
 * says it staged (the connector's proof: the tags stay in the target wherever the log went, and
 * belong to the log that staged them); else `prepared` when the log holds any event, else no row.
 * A log with no event for the operation (none, or one created after the loss) claims nothing.
 */
async function readLocation(
  site: ClickHouseSite,
  table: string,
  operationId: string,
): Promise<FenceLocationReading> {
  if (!(await tableExists(site, table))) return { where: table, table: false, status: null, epoch: null };
  const events = await clickhouseRows<{ kind: string; epoch: string }>(
    site.endpoint,
    `SELECT kind, toString(epoch) AS epoch FROM ${q(site.database)}.${q(table)} ` +
      `WHERE operation_id = ${s(operationId)}`,
    'read the fence',
  );
  if (events.length === 0) return { where: table, table: true, status: null, epoch: null };
  const staged = new Set(events.filter((e) => e.kind === 'staged').map((e) => e.epoch));
  const tagged = await clickhouseRows<{ epoch: string }>(
    site.endpoint,
    `SELECT DISTINCT toString(_dpone_epoch) AS epoch FROM ${q(site.database)}.${q(site.table)} ` +
      `WHERE _dpone_op = ${s(operationId)}`,
    'read the fence',
  );
  const committed = events.some((e) => e.kind === 'committed') || tagged.some((t) => staged.has(t.epoch));
  return {
    where: table,
    table: true,
    status: committed ? 'committed' : 'prepared',
    epoch: Math.max(...events.map((e) => Number(e.epoch))),
  };
}

/** Fence operations on the cell's database, each on the harness's own HTTP request. */
export function clickhouseFenceOperations(site: () => ClickHouseSite): FenceOperations {
  const exec = (sql: string) => clickhouseHttp(site().endpoint, sql, 'change the fence');
  return {
    async drop() {
      await exec(`DROP TABLE IF EXISTS ${q(site().database)}.${FENCE}`);
    },
    async rename() {
      if (await tableExists(site(), FENCE))
        await exec(`RENAME TABLE ${q(site().database)}.${FENCE} TO ${q(site().database)}.${RENAMED_FENCE}`);
    },
    async read(operationId: string): Promise<FenceReading> {
      return {
        locations: [
          await readLocation(site(), FENCE, operationId),
          await readLocation(site(), RENAMED_FENCE, operationId),
        ],
      };
    },
  };
}

/**
 * A digest of the cell's durable ClickHouse state: the fence log (without holders and instants),
 * every table of the cell's database but the harness's own (staging tables and tombstones by name
 * and engine, with their rows), the target's rows with their generation tags, and the table's
 * stored mutations. Equal after two kills: recovery from them is the same test.
 */
export async function clickhouseFingerprint(site: ClickHouseSite): Promise<string> {
  const { endpoint, database } = site;
  const rows = <T>(sql: string) => clickhouseRows<T>(endpoint, sql, 'fingerprint the cell');
  const tables = await rows<{ name: string; engine: string }>(
    `SELECT name, engine FROM system.tables WHERE database = ${s(database)} AND NOT startsWith(name, '_harness') ORDER BY name`,
  );
  const parts: string[] = [];
  for (const { name, engine } of tables) {
    const columns =
      name === FENCE || name === RENAMED_FENCE
        ? 'operation_id, epoch, kind, rows, intent_digest, detail'
        : '*';
    const body = await clickhouseHttp(
      endpoint,
      `SELECT ${columns} FROM ${q(database)}.${q(name)} FORMAT JSONEachRow`,
      'fingerprint the cell',
    );
    parts.push(`${name} ${engine}\n${body.split('\n').filter(Boolean).sort().join('\n')}`);
  }
  const mutations = await rows<{ command: string }>(
    `SELECT command FROM system.mutations WHERE database = ${s(database)} ORDER BY command`,
  );
  parts.push(JSON.stringify(mutations));
  return maskedDigest(parts.join('\n\n'));
}
