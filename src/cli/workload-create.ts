import { invalidInput } from '../contracts/errors.ts';
import type { RouteParts } from '../contracts/route-id.ts';
import type { TargetCreateSpec } from '../contracts/workload.ts';
import { builtInConnector } from './engine-table.ts';

type Fields = Record<string, unknown>;

/**
 * Reads `target.create` (opt-in creation of a missing target table): `columns` maps every column of
 * data.columns to a type the route's target engine accepts (WorkloadRules.createColumnType). Its
 * shape is checked first, whatever the route; then each type by the target engine; a route into an
 * engine that cannot create its table is refused (`creating` lists those that can). Absent: a
 * missing target table is refused.
 */
export function targetCreate(
  value: unknown,
  columns: readonly string[],
  route: RouteParts,
  creating: string,
): TargetCreateSpec {
  const field = 'target.create';
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalidInput(`${field} must be a map with columns: { name: type }`, { field });
  const record = value as Fields;
  for (const key of Object.keys(record))
    if (key !== 'columns')
      throw invalidInput(`${field}.${key} is not a workload field (allowed here: columns)`, {
        field: `${field}.${key}`,
      });
  const types = record.columns;
  if (types === undefined || types === null)
    throw invalidInput(`${field}.columns is missing`, { field: `${field}.columns` });
  if (typeof types !== 'object' || Array.isArray(types))
    throw invalidInput(`${field}.columns must map each column of data.columns to its type`, {
      field: `${field}.columns`,
    });
  const typed = types as Fields;
  const columnType = builtInConnector(route.target)?.workload?.createColumnType;
  for (const [name, type] of Object.entries(typed)) {
    const at = `${field}.columns.${name}`;
    if (!columns.includes(name)) throw invalidInput(`${at}: "${name}" is not in data.columns`, { field: at });
    if (typeof type !== 'string' || (columnType !== undefined && !columnType.test(type.trim())))
      throw invalidInput(`${at} must be ${columnType?.expected ?? 'a column type'}`, { field: at });
  }
  const untyped = columns.filter((name) => !Object.hasOwn(typed, name));
  if (untyped.length > 0)
    throw invalidInput(`${field}.columns gives no type for ${untyped.join(', ')}`, {
      field: `${field}.columns`,
    });
  if (columnType === undefined)
    throw invalidInput(
      `${field} is supported only when the target is one of: ${creating} (route ${route.id})`,
      { field },
    );
  return { columns: Object.fromEntries(columns.map((name) => [name, String(typed[name]).trim()])) };
}
