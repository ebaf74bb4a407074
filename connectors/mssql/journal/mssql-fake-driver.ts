import type {
  MssqlDriver,
  MssqlPool,
  MssqlPoolConfig,
  MssqlRequest,
  MssqlResult,
  MssqlTransaction,
} from './mssql-driver.ts';
import { MSSQL_JOURNAL_SQL } from './mssql-statements.ts';

/** One statement the fake saw: where it ran (pool or transaction), its text and bound parameters. */
export interface SeenQuery {
  readonly via: 'pool' | 'tx';
  readonly text: string;
  readonly params: Readonly<Record<string, unknown>>;
}

export type Responder = (query: SeenQuery) => MssqlResult | Promise<MssqlResult>;

/**
 * A fake of the driver slice for unit tests of what needs no server (error mapping, the rowcount
 * guard, statement order). It answers from a responder function; it is not a database.
 */
export class FakeMssql {
  readonly queries: SeenQuery[] = [];
  readonly events: string[] = [];
  config: MssqlPoolConfig | undefined;
  connectError: unknown;
  respond: Responder = () => ({ rowsAffected: [] });
  /**
   * The server's clock as the fake answers the journal's clock read (MSSQL_JOURNAL_SQL.now) itself,
   * noted as the event `clock` rather than as a query, so tests of statement order need not list it.
   */
  serverNowMs = 1_000;

  driver(): MssqlDriver {
    const event = (name: string) => void this.events.push(name);
    const answer = async (seen: SeenQuery) => {
      if (seen.text === MSSQL_JOURNAL_SQL.now) {
        event('clock');
        return { recordset: [{ journal_now_ms: String(this.serverNowMs) }], rowsAffected: [1] };
      }
      this.queries.push(seen);
      return this.respond(seen);
    };
    const connect = async () => {
      event('connect');
      if (this.connectError !== undefined) throw this.connectError;
    };
    const configure = (config: MssqlPoolConfig) => {
      this.config = config;
    };
    const request = (via: SeenQuery['via']): MssqlRequest => {
      const params: Record<string, unknown> = {};
      const built: MssqlRequest = {
        input(name, value) {
          params[name] = value;
          return built;
        },
        query: (text) => answer({ via, text, params }),
      };
      return built;
    };
    class Pool implements MssqlPool {
      constructor(config: MssqlPoolConfig) {
        configure(config);
      }
      connect = connect;
      close = async () => event('close');
      request() {
        return request('pool');
      }
      transaction(): MssqlTransaction {
        return {
          begin: async () => event('begin'),
          commit: async () => event('commit'),
          rollback: async () => event('rollback'),
          request: () => request('tx'),
        };
      }
    }
    return { ConnectionPool: Pool, ISOLATION_LEVEL: { READ_COMMITTED: 2, SERIALIZABLE: 4 } };
  }
}

/** A driver error shaped like the real one: number, and a message full of things we must not echo. */
export function driverError(number: number, message: string): Error {
  return Object.assign(new Error(message), { number, name: 'RequestError' });
}
