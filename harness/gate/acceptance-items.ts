import { routeTargetAcceptance } from '../../src/cli/route-acceptance.ts';
import { resolveRouteId } from '../../src/cli/route-names.ts';
import { CONNECTOR_PARTS } from '../routes/route-registry.ts';
import type { AcceptanceItem } from './acceptance-item.ts';
import { airflowItem } from './airflow-item.ts';
import { clockSkewItem } from './clock-skew-item.ts';
import { intentConflictItem } from './intent-item.ts';
import { journalLossItem } from './journal-loss-item.ts';
import { unknownNeverSuccess } from './unknown-item.ts';
import { shadowReportItem } from './shadow-item.ts';
import { killAtEveryTransition, liveUnverified, twoWorkers } from './spec-items.ts';

/**
 * The spec's "Mandatory acceptance" list, in its order, then issue 10's lost-journal item and the
 * test plan's Airflow row: every route's. The registry, apart from the AcceptanceItem interface
 * (acceptance-item.ts) so that the interface never imports the items.
 */
const SHARED_ITEMS: readonly AcceptanceItem[] = [
  killAtEveryTransition,
  twoWorkers,
  intentConflictItem,
  unknownNeverSuccess,
  liveUnverified,
  journalLossItem,
  airflowItem,
];

/**
 * The items the gate decides for `route` (an id or an alias), in the order it prints them: the
 * shared ones, the target engine's route lines, issue 30's clock item, issue 36's shadow item
 * where the target has plain writes, then the target engine's storage lines (issue 33's power
 * loss, full disk, read-only and journal corruption). An engine's own lines live in its folder
 * (`connectors/<engine>/harness/gate/`) and come from its harness entry
 * (ConnectorPartsEntry.acceptance); the runtime's registration of the engine names the same items
 * (src/cli/route-acceptance.ts, a test keeps them equal).
 */
export function acceptanceItems(route: string): readonly AcceptanceItem[] {
  const target = resolveRouteId(route)?.target;
  const engine =
    target !== undefined && Object.hasOwn(CONNECTOR_PARTS, target) ? CONNECTOR_PARTS[target] : undefined;
  const own = engine?.acceptance;
  return [
    ...SHARED_ITEMS,
    ...(own?.route ?? []),
    clockSkewItem,
    ...(routeTargetAcceptance(route).plainWrites ? [shadowReportItem] : []),
    ...(own?.storage ?? []),
  ];
}
