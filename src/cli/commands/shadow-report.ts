import { dirname, join } from 'node:path';
import { DponeError, ERROR_CODES, invalidInput } from '../../contracts/errors.ts';
import type { ShadowReport } from '../../core/shadow-report.ts';
import { shadowReport } from '../../core/shadow-report.ts';
import { parseFlags } from '../args.ts';
import type { CommandRun } from '../command.ts';
import { describeJournal } from '../journal-durability.ts';
import { openShadowJournal } from '../shadow-journal-url.ts';
import { defaultJournalUrl } from '../engine-roles.ts';
import { readWorkloadFile } from '../workload-file.ts';
import { requestedRuntimeFlaws } from '../../test-hooks/index.ts';
import { UNSAFE_VARIANTS } from '../unsafe-catalogue.ts';

const FLAGS = {
  workload: { type: 'string' },
  journal: { type: 'string' },
  since: { type: 'string' },
  json: { type: 'boolean' },
} as const;

function since(value: string | undefined): string | null {
  if (value === undefined) return null;
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time))
    throw invalidInput('--since must be an ISO-8601 date or time (e.g. 2026-07-18 or 2026-07-18T06:00:00Z)', {
      field: '--since',
    });
  return new Date(time).toISOString();
}

/**
 * `dpone shadow report (--workload FILE | --journal URL) [--since TIME] [--json]`: what shadow
 * mode measured in a journal (read-only, creates nothing): operations written more than once,
 * unknown outcomes, identity collisions and partitions written by more than one operation. Exit 0
 * whatever it finds: it is a measurement, not a check.
 */
export const run: CommandRun = async (args, io) => {
  const { values } = parseFlags(args, FLAGS);
  const from = since(values.since);
  let url = values.journal;
  let base = io.cwd;
  if (url === undefined) {
    if (values.workload === undefined)
      throw invalidInput('--workload FILE or --journal URL is required to find the shadow journal', {
        field: '--workload',
      });
    const workload = await readWorkloadFile(values.workload, io.cwd);
    const stateDir = workload.execution.state_dir ?? join(dirname(workload.file), 'dpone-state');
    url = workload.journal ?? defaultJournalUrl(stateDir);
    base = dirname(workload.file);
  }
  const journal = describeJournal(url, base, values.journal !== undefined ? '--journal' : 'journal');
  let problem: string | null = null;
  await using shadow = await openShadowJournal(
    { journal, url, base, timeoutMs: 5000 },
    (line) =>
      (problem = line.replace(/^dpone: warning: /, '').replace(/: the write goes on unrecorded$/, '')),
    false,
    io.env,
  );
  if (shadow === null)
    throw new DponeError(
      ERROR_CODES.JOURNAL_UNAVAILABLE,
      `no shadow journal to report on: ${problem ?? journal.location}`,
    );
  const attempts = await shadow.attempts(from);
  // Unsafe variant shadow-report-miscounts (DPONE_HARNESS=1 only): refused writes dropped from the count.
  const counted = requestedRuntimeFlaws(io.env, UNSAFE_VARIANTS).shadowReportMiscounts
    ? attempts.filter((attempt) => !attempt.wouldDecide.startsWith('refused'))
    : attempts;
  const report = shadowReport(counted, shadow.location, from);
  io.stdout.write(values.json ? `${JSON.stringify(report)}\n` : readable(report));
  return 0;
};

function readable(report: ShadowReport): string {
  const { totals } = report;
  const lines = [
    `shadow journal: ${report.journal}${report.since ? ` (attempts since ${report.since})` : ''}`,
    `operations: ${totals.operations}, attempts: ${totals.attempts}`,
    `written more than once: ${totals.duplicate_operations} operation(s), ${totals.duplicate_writes} extra write(s) enforcement would have refused`,
    `possibly written more than once: ${totals.possible_duplicate_operations} operation(s) (unknown attempts; the target's rows decide)`,
    `unknown outcomes: ${totals.unknown_outcomes} attempt(s)`,
    `identity collisions: ${totals.identity_collisions}`,
    `partitions written by more than one operation: ${totals.shared_partitions}`,
  ];
  for (const operation of report.duplicates)
    lines.push(
      `  duplicate ${operation.operation_id} (${operation.workload_id}, ${operation.partition}): ${operation.writes} writes in ${operation.attempts.length} attempts`,
    );
  for (const operation of report.unknown)
    for (const attempt of operation.attempts.filter(
      (a) => a.outcome === 'unknown' || a.outcome === 'unfinished',
    ))
      lines.push(
        `  unknown ${operation.operation_id} try ${attempt.try} (${attempt.outcome}, holder ${attempt.holder})`,
      );
  for (const operation of report.identity_collisions)
    lines.push(`  collision ${operation.operation_id}: ${operation.intent_digests.length} intents`);
  for (const partition of report.shared_partitions)
    lines.push(
      `  shared ${partition.target_identity} ${partition.partition}: ${partition.operation_ids.length} operations`,
    );
  return `${lines.join('\n')}\n`;
}
