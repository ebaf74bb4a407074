import type { MssqlPoolConfig } from './mssql-connector-config.ts';
import type {
  MssqlDriver,
  MssqlPool,
  MssqlRequest,
  MssqlResult,
  MssqlTable,
  MssqlTransaction,
} from './mssql-session.ts';

/**
 * One statement the fake saw: the transaction it ran in (null: the pool), its text and parameters.
 * A bulk load shows as `INSERT BULK <table> (<columns>)` (what the driver sends), with its rows.
 */
export interface SeenQuery {
  readonly tx: number | null;
  readonly text: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly rows?: readonly (readonly unknown[])[];
}

/** The fake's `Table`: what a bulk load would send. */
class FakeTable implements MssqlTable {
  create = true;
  readonly name: string;
  readonly columns: { name: string; type: unknown; nullable: boolean }[] & MssqlTable['columns'];
  readonly rows: unknown[][] & MssqlTable['rows'];
  constructor(name: string) {
    this.name = name;
    const columns: { name: string; type: unknown; nullable: boolean }[] = [];
    const rows: unknown[][] = [];
    this.columns = Object.assign(columns, {
      add: (column: string, type: unknown, options?: { nullable?: boolean }) =>
        columns.push({ name: column, type, nullable: options?.nullable ?? false }),
    });
    this.rows = Object.assign(rows, { add: (...values: unknown[]) => rows.push(values) });
  }
}

/** What happened, in order: pool and transaction events, and every statement. */
export type FakeEvent =
  | { readonly kind: 'connect' | 'close' }
  | { readonly kind: 'begin' | 'commit' | 'rollback'; readonly tx: number }
  | ({ readonly kind: 'query' | 'bulk' } & SeenQuery);

export type Responder = (query: SeenQuery) => MssqlResult | Promise<MssqlResult>;

const MAX = 65535;
const NVARCHAR_MAX = { nvarchar: 'max' };

/**
 * A fake of the driver slice for unit tests of what needs no server (statement order, the
 * rowcount guard, batching, error mapping). It answers from a responder function; it is not a
 * database, and nothing it proves stands in for a live SQL Server run.
 */
export class FakeMssql {
  readonly events: FakeEvent[] = [];
  readonly configs: MssqlPoolConfig[] = [];
  connectError: unknown;
  respond: Responder = () => ({ rowsAffected: [] });
  #transactions = 0;

  get queries(): SeenQuery[] {
    return this.events.flatMap((e) =>
      e.kind === 'query' || e.kind === 'bulk'
        ? [{ tx: e.tx, text: e.text, params: e.params, ...(e.rows ? { rows: e.rows } : {}) }]
        : [],
    );
  }

  /** Event kinds only, e.g. `['begin', 'query', 'query', 'commit']`. */
  get kinds(): string[] {
    return this.events.map((e) => e.kind);
  }

  driver(): MssqlDriver {
    // Arrow functions keep `this` (the fake) inside the classes below.
    const push = (event: FakeEvent) => void this.events.push(event);
    const answer = (seen: SeenQuery) => this.respond(seen);
    const configure = (config: MssqlPoolConfig) => void this.configs.push(config);
    const failConnect = () => this.connectError;
    const nextTx = () => ++this.#transactions;
    const request = (tx: number | null): MssqlRequest => {
      const params: Record<string, unknown> = {};
      const built: MssqlRequest = {
        input(name, value) {
          params[name] = value;
          return built;
        },
        async query(text) {
          const seen = { tx, text, params };
          push({ kind: 'query', ...seen });
          return answer(seen);
        },
        async bulk(table) {
          const fake = table as FakeTable;
          if (fake.create) throw new Error('the fake bulk-loads into an existing table only');
          if (fake.columns.some((c) => c.type !== NVARCHAR_MAX || !c.nullable))
            throw new Error('the fake bulk-loads nullable NVARCHAR(MAX) columns only');
          const columns = fake.columns.map((c) => `[${c.name}]`).join(', ');
          const seen = { tx, text: `INSERT BULK ${fake.name} (${columns})`, params, rows: [...fake.rows] };
          push({ kind: 'bulk', ...seen });
          const reply = await answer(seen);
          return { rowsAffected: reply.rowsAffected[0] ?? fake.rows.length };
        },
      };
      return built;
    };
    class Pool implements MssqlPool {
      constructor(config: MssqlPoolConfig) {
        configure(config);
      }
      async connect() {
        push({ kind: 'connect' });
        const error = failConnect();
        if (error !== undefined) throw error;
      }
      async close() {
        push({ kind: 'close' });
      }
      request() {
        return request(null);
      }
      transaction(): MssqlTransaction {
        const tx = nextTx();
        return {
          begin: async () => push({ kind: 'begin', tx }),
          commit: async () => push({ kind: 'commit', tx }),
          rollback: async () => push({ kind: 'rollback', tx }),
          request: () => request(tx),
        };
      }
    }
    return {
      ConnectionPool: Pool,
      ISOLATION_LEVEL: { READ_COMMITTED: 2, SERIALIZABLE: 4 },
      Table: FakeTable,
      NVarChar: (length) => (length === MAX ? NVARCHAR_MAX : { nvarchar: length }),
      MAX,
    };
  }
}

/** A driver error shaped like the real one: a number, and a message full of things we must not echo. */
export function driverError(number: number | undefined, message: string): Error {
  return Object.assign(new Error(message), { number, name: 'RequestError' });
}
