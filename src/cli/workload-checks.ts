import { invalidInput } from '../contracts/errors.ts';
import type { Workload } from '../contracts/workload.ts';
import { urlEngine } from './route-names.ts';
import { builtInConnector } from './engine-table.ts';

/**
 * Checks across fields of a workload that each field's own check cannot see: dpone's own tables,
 * and a target that is the source (the same table of the same database, as the engine of its URL
 * tells: WorkloadRules.location). Each engine's own name rules (WorkloadRules.checkEndpoint) run
 * when the fields are read. Each refusal is DPONE_INVALID_INPUT naming the field; the file reader
 * adds `file:line:column`.
 */
export function checkWorkload(workload: Workload): Workload {
  for (const side of ['source', 'target'] as const) {
    const endpoint = workload[side];
    if (/(^|\.)_dpone_/i.test(endpoint.table))
      throw invalidInput(`${side}.table names a table of dpone's own (_dpone_…)`, { field: `${side}.table` });
  }
  if (sameEndpoint(workload)) {
    throw invalidInput(
      'target.table is the source table itself (same database and table): the load would append into its own source',
      { field: 'target.table' },
    );
  }
  return workload;
}

/** Where an endpoint's rows live, by the engine its URL names; null when no built-in engine can tell. */
function location(workload: Workload, side: 'source' | 'target'): string | null {
  const engine = urlEngine(workload[side].url);
  return (
    (engine === null ? undefined : builtInConnector(engine)?.workload?.location?.(workload, side)) ?? null
  );
}

function sameEndpoint(workload: Workload): boolean {
  const source = location(workload, 'source');
  return source !== null && source === location(workload, 'target');
}
