import type { TargetAcceptance } from '../contracts/certification.ts';
import { mandatoryAcceptanceItems } from '../contracts/certification.ts';
import { builtInConnector } from './engine-table.ts';
import { resolveRouteId } from './route-names.ts';

/**
 * What a route's target adds to the acceptance items its certification must hold, read from the
 * target engine's registration (ConnectorPlugin.acceptance, and whether it offers `openPlain`).
 * Only a built-in engine's registration is read (the extension members of the contract): a
 * plug-in's target, or a route this build does not know, adds nothing.
 */
export function routeTargetAcceptance(route: string): TargetAcceptance {
  const target = resolveRouteId(route)?.target;
  const engine = target === undefined ? undefined : builtInConnector(target);
  const acceptance = engine?.acceptance;
  return {
    targetItems: acceptance?.targetItems ?? [],
    plainWrites: typeof engine?.target?.openPlain === 'function',
    ...(acceptance?.plainWriteItem ? { plainWriteItem: acceptance.plainWriteItem } : {}),
  };
}

/** Every item a record for `route` (an id or an alias) must hold, each PASS, by name. */
export function routeAcceptanceItems(route: string): readonly string[] {
  return mandatoryAcceptanceItems(routeTargetAcceptance(route));
}
