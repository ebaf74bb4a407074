import { invalidInput } from '../../src/contracts/errors.ts';
import { FENCE_TABLE } from '../../src/adapters/connectors/marker-fence/marker-fence.ts';
import { quoteIdentifier } from './postgres-config.ts';

/**
 * Where a PostgreSQL target's fence lives. Every statement names it schema-qualified, so the
 * connection's search_path (a role setting, `?schema=`, a temporary schema) can never make a
 * retry look somewhere else. The schema is `target.fence_schema`, else the URL's `?schema=`,
 * else `public`; temporary and system schemas are refused. (The protocol is in ../marker-fence;
 * the dialect in postgres-dialect.ts.)
 */
export interface PostgresFence {
  readonly schema: string;
  /** The quoted, qualified table name the SQL uses. */
  readonly table: string;
  /** Safe identity recorded in the journal, e.g. `postgres:dw._dpone_fence`. */
  readonly location: string;
}

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

/** True for the schemas a fence must never live in: temporary (gone at disconnect) or system. */
export function isForbiddenFenceSchema(schema: string): boolean {
  return schema.startsWith('pg_') || schema === 'information_schema';
}

/** Resolves and checks the fence schema; bad input names the field it came from. */
export function postgresFence(url: string, fenceSchema: string | undefined): PostgresFence {
  let schema = fenceSchema;
  let field = 'target.fence_schema';
  if (schema === undefined) {
    field = 'target.url';
    try {
      schema = new URL(url).searchParams.get('schema') ?? 'public';
    } catch {
      schema = 'public';
    }
  }
  if (!SCHEMA.test(schema)) {
    throw invalidInput(`${field} names a bad fence schema (lower-case letters, digits, _)`, { field });
  }
  if (isForbiddenFenceSchema(schema)) {
    throw invalidInput(
      `${field} puts the fence in ${schema.startsWith('pg_temp') ? 'a temporary' : 'a system'} schema (${schema}); ` +
        'the fence must outlive every connection: name an ordinary schema in target.fence_schema',
      { field },
    );
  }
  return {
    schema,
    table: `${quoteIdentifier(schema)}.${quoteIdentifier(FENCE_TABLE)}`,
    location: `postgres:${schema}.${FENCE_TABLE}`,
  };
}

/** The fence table, created when missing; a table from an older version gains the new columns. */
export function fenceTableDdl(fence: PostgresFence): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${fence.table} (operation_id TEXT PRIMARY KEY, epoch BIGINT NOT NULL, ` +
      'status TEXT NOT NULL, committed_epoch BIGINT, rows_written BIGINT, intent_digest TEXT, holder TEXT, ' +
      'updated_at_ms BIGINT NOT NULL)',
    `ALTER TABLE ${fence.table} ADD COLUMN IF NOT EXISTS intent_digest TEXT, ADD COLUMN IF NOT EXISTS holder TEXT`,
  ];
}
