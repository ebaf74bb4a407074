import { expect } from 'vitest';
import type { BuiltInConnector } from './engine-table.ts';
import { BUILT_IN_CONNECTORS, SOURCE_ENGINES, TARGET_ENGINES } from './engine-table.ts';

/**
 * For an engine's own registration test: `engine` (its folder's engine.ts) is the table's line
 * `name`, in its folder, and the routes' source and target engine `name` are its parts (`sides`:
 * the ones it has).
 */
export function expectTableLine(
  name: string,
  engine: BuiltInConnector,
  sides: readonly ('source' | 'target')[],
): void {
  expect(BUILT_IN_CONNECTORS[name]).toBe(engine);
  expect(engine.folder.endsWith(`/connectors/${name}/`)).toBe(true);
  const routes = { source: SOURCE_ENGINES, target: TARGET_ENGINES };
  for (const side of ['source', 'target'] as const)
    if (sides.includes(side)) expect(routes[side][name], side).toBe(engine[side]!);
    else expect(routes[side][name], side).toBeUndefined();
}
