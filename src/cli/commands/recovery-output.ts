import type { LeftoverJSON } from '../../ports/connector-plugin.ts';
import type { CommitJournalEntry, JournalHistoryRecord } from '../../contracts/journal.ts';
import type { RecoveryApplyResult } from '../../core/recovery-apply.ts';
import type { RecoveryPlan } from '../../core/recovery-actions.ts';
import type { FenceAnswer } from '../../ports/connector.ts';
import { escapeUnsafe } from '../../contracts/safe-text.ts';

/**
 * The documented `--json` shapes of the recovery commands and their human-readable form. Every
 * field is a safe identity, a state, a version, a time or an operator's checked text: never a
 * credential, SQL or row value.
 */

export interface FenceJSON {
  readonly status: FenceAnswer['status'];
  readonly epoch: number | null;
  readonly committed_epoch: number | null;
  readonly rows_written: number | null;
}

/** `inspect --json`: schema `dpone.recovery.inspect/v1`. */
export interface InspectJSON {
  readonly schema: 'dpone.recovery.inspect/v1';
  readonly operation_id: string;
  readonly journal: string;
  readonly entry: CommitJournalEntry & { readonly lease_live: boolean };
  readonly history: readonly JournalHistoryRecord[];
  /** null when no `--route` was given. */
  readonly fence: FenceJSON | null;
  /** What the operation left in its target (staging tables, tombstones: PluginTarget.openLeftovers); null without `--route`. */
  readonly leftovers: readonly LeftoverJSON[] | null;
  readonly assessment: RecoveryPlan['assessment'];
}

/** `plan --json`: schema `dpone.recovery.plan/v1`. */
export interface PlanJSON {
  readonly schema: 'dpone.recovery.plan/v1';
  readonly operation_id: string;
  readonly journal: string;
  readonly fence: FenceJSON | null;
  readonly assessment: RecoveryPlan['assessment'];
  readonly actions: RecoveryPlan['actions'];
  readonly recommended: RecoveryPlan['recommended'];
  /** The apply command for the recommended action, or null. */
  readonly next_command: string | null;
}

/** `apply --json`: schema `dpone.recovery.apply/v1`. */
export interface ApplyJSON {
  readonly schema: 'dpone.recovery.apply/v1';
  readonly operation_id: string;
  readonly action: string;
  readonly before: { readonly state: string; readonly version: number };
  readonly after: { readonly state: string; readonly version: number };
  readonly audit: RecoveryApplyResult['audit'];
}

export function fenceJSON(answer: FenceAnswer | null): FenceJSON | null {
  if (answer === null) return null;
  return {
    status: answer.status,
    epoch: answer.epoch,
    committed_epoch: answer.committedEpoch,
    rows_written: answer.rowsWritten,
  };
}

/**
 * Journal text (holders, actors, reasons, workload ids) may have been written by another version
 * or tool: every line is printed with control and bidirectional characters escaped.
 */
function printable(text: string): string {
  return text.split('\n').map(escapeUnsafe).join('\n');
}

function time(ms: number): string {
  return new Date(ms).toISOString();
}

function fenceLine(fence: FenceJSON | null): string {
  if (fence === null) return 'not queried (give --route FILE to ask the target)';
  const parts = [`epoch ${fence.epoch ?? 'none'}`];
  if (fence.committed_epoch !== null) parts.push(`committed under epoch ${fence.committed_epoch}`);
  if (fence.rows_written !== null) parts.push(`${fence.rows_written} rows`);
  return `${fence.status} (${parts.join(', ')})`;
}

function historyLine(record: JournalHistoryRecord): string {
  const move =
    record.from_state && record.from_state !== record.to_state
      ? `${record.from_state} -> ${record.to_state}`
      : record.to_state;
  const lease =
    record.lease_epoch !== null ? ` [${record.lease_holder ?? '?'} epoch ${record.lease_epoch}]` : '';
  const fence = record.evidence.fence_status ? ` fence=${record.evidence.fence_status}` : '';
  const error = record.evidence.error_code ? ` error=${record.evidence.error_code}` : '';
  const audit = record.audit
    ? `\n        audit: ${record.audit.actor} ${record.audit.action} at ${time(record.audit.at_ms)} ref=${record.audit.reference} reason="${record.audit.reason}"`
    : '';
  return `  v${String(record.version).padEnd(3)} ${record.kind.padEnd(10)} ${move.padEnd(36)} ${time(record.at_ms)}  ${record.evidence.reason}${fence}${error}${lease}${audit}`;
}

export function renderInspect(view: InspectJSON): string {
  const { entry } = view;
  const lease = entry.lease
    ? `${entry.lease.holder}, epoch ${entry.lease.epoch}, until ${time(entry.lease.expires_at_ms)} (${entry.lease_live ? 'LIVE' : 'expired'})`
    : `none (last epoch ${entry.last_epoch})`;
  const result = entry.result
    ? `${entry.result.rows_written} rows, fence epoch ${entry.result.fence_epoch}, ${entry.result.target_identity}`
    : 'none recorded';
  return printable(
    [
      `operation   ${view.operation_id}`,
      `journal     ${view.journal}`,
      `state       ${entry.state} (version ${entry.version})`,
      `intent      ${entry.intent_digest}`,
      `workload    ${entry.metadata.workload_id} -> ${entry.metadata.target_identity}${entry.metadata.route ? ` (route ${entry.metadata.route})` : ''}`,
      `lease       ${lease}`,
      `result      ${result}`,
      `fence       ${fenceLine(view.fence)}`,
      ...(view.leftovers === null
        ? []
        : [
            `leftovers   ${view.leftovers.length === 0 ? 'none' : view.leftovers.map((l) => `${l.name} (${l.kind}, epoch ${l.epoch})`).join(', ')}`,
          ]),
      `history`,
      ...view.history.map(historyLine),
      `together    ${view.assessment.kind}: ${view.assessment.implication}`,
      '',
    ].join('\n'),
  );
}

export function renderPlan(view: PlanJSON): string {
  const lines = [
    `operation   ${view.operation_id}`,
    `state       ${view.assessment.state} (version ${view.assessment.version})`,
    `fence       ${fenceLine(view.fence)}`,
    `together    ${view.assessment.kind}: ${view.assessment.implication}`,
    'actions',
  ];
  for (const action of view.actions) {
    const move = action.transition
      ? `${action.transition.from} -> ${action.transition.to}`
      : 'no transition from here';
    lines.push(`  ${action.legal ? 'LEGAL  ' : 'refused'} ${action.name} (${move})`);
    lines.push(`          effect: ${action.effect}`);
    for (const condition of action.preconditions)
      lines.push(`          [${condition.met ? 'x' : ' '}] ${condition.description}`);
  }
  lines.push(`recommended ${view.recommended ?? 'none'}`);
  if (view.next_command) lines.push(`next        ${view.next_command}`);
  lines.push('');
  return printable(lines.join('\n'));
}

export function renderApply(view: ApplyJSON): string {
  return printable(
    [
      `applied     ${view.action} to ${view.operation_id}`,
      `journal     ${view.before.state} v${view.before.version} -> ${view.after.state} v${view.after.version}`,
      `audit       ${view.audit.actor} at ${time(view.audit.at_ms)} ref=${view.audit.reference} reason="${view.audit.reason}"` +
        (view.audit.fence_epoch !== undefined ? ` fence-epoch=${view.audit.fence_epoch}` : ''),
      view.after.state === 'PREPARED'
        ? 'next        an ordinary `dpone run` retry now writes once under a new lease epoch'
        : view.after.state === 'TARGET_COMMITTED'
          ? 'next        complete-state (or a `dpone run` retry) completes it without writing the target'
          : '',
      '',
    ].join('\n'),
  );
}
