/**
 * What PostgreSQL does to names that a workload must not let happen silently:
 * - a table in a temporary schema (`pg_temp`, `pg_temp_3`, …) vanishes when the session ends, so a
 *   "committed" load would be gone and every later run would say already-complete;
 * - system schemas (`pg_catalog`, `pg_toast*`, `information_schema`) are not for user data;
 * - identifiers longer than 63 bytes are truncated by the server, so two different long names can
 *   name one table.
 * Names are always quoted when used, so they are case-sensitive: `dw.Events` is not `dw.events`.
 */
export const POSTGRES_IDENTIFIER_MAX_BYTES = 63;

const SYSTEM_SCHEMA = /^(pg_temp(_\d+)?|pg_toast(_temp)?(_\d+)?|pg_catalog|information_schema)$/i;

/** Why a schema may not hold a workload's tables (or its fence), or null when it may. */
export function refusedSchema(schema: string): string | null {
  if (!SYSTEM_SCHEMA.test(schema)) return null;
  return /^pg_(temp|toast_temp)/i.test(schema)
    ? `"${schema}" is a temporary schema: its tables vanish when the session ends`
    : `"${schema}" is a system schema`;
}

/** Why an identifier is refused (too long for PostgreSQL), or null. */
export function refusedIdentifier(name: string): string | null {
  const bytes = new TextEncoder().encode(name).length;
  return bytes > POSTGRES_IDENTIFIER_MAX_BYTES
    ? `"${name.slice(0, 20)}…" is ${bytes} bytes; PostgreSQL truncates names to ${POSTGRES_IDENTIFIER_MAX_BYTES} bytes, so two long names could name one table`
    : null;
}

/** Why a `schema.table` or `table` name is refused, or null when PostgreSQL takes it as written. */
export function refusedTableName(name: string): string | null {
  const parts = name.split('.');
  for (const part of parts) {
    const tooLong = refusedIdentifier(part);
    if (tooLong) return tooLong;
  }
  return parts.length > 1 ? refusedSchema(parts[0]!) : null;
}
