import type { MssqlPoolConfig } from './mssql-connector-config.ts';
import type { MssqlDriver, MssqlPool, MssqlRequest, MssqlResult, MssqlTransaction } from './mssql-session.ts';

/** One statement the fake saw: the transaction it ran in (null: the pool), its text and parameters. */
export interface SeenQuery {
  readonly tx: number | null;
  readonly text: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** What happened, in order: pool and transaction events, and every statement. */
export type FakeEvent =
  | { readonly kind: 'connect' | 'close' }
  | { readonly kind: 'begin' | 'commit' | 'rollback'; readonly tx: number }
  | ({ readonly kind: 'query' } & SeenQuery);

export type Responder = (query: SeenQuery) => MssqlResult | Promise<MssqlResult>;

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
      e.kind === 'query' ? [{ tx: e.tx, text: e.text, params: e.params }] : [],
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
    return { ConnectionPool: Pool, ISOLATION_LEVEL: { READ_COMMITTED: 2, SERIALIZABLE: 4 } };
  }
}

/** A driver error shaped like the real one: a number, and a message full of things we must not echo. */
export function driverError(number: number | undefined, message: string): Error {
  return Object.assign(new Error(message), { number, name: 'RequestError' });
}
