import type { AcceptanceItem } from './acceptance-item.ts';
import { airflowItem } from './airflow-item.ts';
import { clockSkewItem } from './clock-skew-item.ts';
import { intentConflictItem } from './intent-item.ts';
import { journalLossItem } from './journal-loss-item.ts';
import { unknownNeverSuccess } from './unknown-item.ts';
import { shadowReportItem } from './shadow-item.ts';
import {
  fullDiskServerItem,
  journalCorruptionServerItem,
  lostCommitItem,
  poolerItem,
  powerLossServerItem,
  stallItem,
} from '../../connectors/postgres/harness/gate/postgres-items.ts';
import { powerLossItem, powerLossTargetItem } from '../../connectors/sqlite/harness/gate/power-loss-item.ts';
import {
  fullDiskItem,
  journalCorruptionItem,
  readOnlyDiskItem,
} from '../../connectors/sqlite/harness/gate/storage-items.ts';
import { killAtEveryTransition, liveUnverified, twoWorkers } from './spec-items.ts';

/**
 * The spec's "Mandatory acceptance" list, in its order, then issue 10's lost-journal item, the
 * test plan's Airflow row, issue 30's clock item, issue 36's shadow item and issue 33's
 * power-loss, full-disk, read-only and journal-corruption items. The registry, apart from the AcceptanceItem
 * interface (acceptance-item.ts) so that the interface never imports the items. An engine's own
 * lines live in its folder (`connectors/<engine>/harness/gate/`) and take their place here, in the
 * order the gate prints them; each applies only to its engine's routes.
 */
export const ACCEPTANCE_ITEMS: readonly AcceptanceItem[] = [
  killAtEveryTransition,
  twoWorkers,
  intentConflictItem,
  unknownNeverSuccess,
  liveUnverified,
  journalLossItem,
  airflowItem,
  poolerItem,
  lostCommitItem,
  stallItem,
  clockSkewItem,
  shadowReportItem,
  powerLossItem,
  powerLossTargetItem,
  powerLossServerItem,
  fullDiskItem,
  fullDiskServerItem,
  journalCorruptionServerItem,
  readOnlyDiskItem,
  journalCorruptionItem,
];
