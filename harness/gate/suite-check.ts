import { basename } from 'node:path';
import { CERTIFYING_SUITE } from '../../src/contracts/certification.ts';
import { suiteDigest } from '../../src/cli/shipped-suites.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import { planRecordOf } from '../plan/plan-check.ts';
import { scenarioDigest } from '../plan/plan-record.ts';
import { loadScenarios } from '../scenario/scenario-loader.ts';
import { defaultScenarioFiles } from '../scenario/scenario-suites.ts';

/** What the suite line found. */
export interface LineCheck {
  readonly ok: boolean;
  readonly detail: string;
}

/**
 * Whether the evidence was planned from exactly the suite this runtime ships as `full` for its
 * route: every scenario file of it that fits the route, each with the content the runtime ships
 * (by the digests the plan records), none missing and none added; and the run was asked for that
 * suite by name. A toy suite, the repository's test fixtures, or a suite edited after the run fail.
 */
export async function checkSuite(
  evidence: Evidence,
  cwd: string,
  connectors: readonly string[] = [],
): Promise<LineCheck> {
  const recorded = (evidence.environment as { suite?: { name?: unknown; digest?: unknown } | null }).suite;
  const plan = planRecordOf(evidence);
  if (plan === null) return { ok: false, detail: 'the evidence records no plan: no suite to compare' };
  let shipped: string[];
  try {
    shipped = await defaultScenarioFiles(evidence.route, cwd, CERTIFYING_SUITE, connectors);
  } catch {
    return {
      ok: false,
      detail: `this runtime ships no ${CERTIFYING_SUITE} suite for route ${evidence.route}`,
    };
  }
  const loaded = await loadScenarios(shipped);
  const want = new Map(loaded.map(({ file, scenario }) => [scenarioDigest(scenario), basename(file)]));
  const have = new Map(plan.scenarios.map((source) => [source.sha256, basename(source.file)]));
  const missing = [...want].filter(([digest]) => !have.has(digest)).map(([, name]) => name);
  const extra = [...have].filter(([digest]) => !want.has(digest)).map(([, name]) => name);
  const list = (names: string[]) =>
    `${names.slice(0, 3).join(', ')}${names.length > 3 ? ` (+${names.length - 3} more)` : ''}`;
  if (missing.length > 0 || extra.length > 0)
    return {
      ok: false,
      detail: `planned from ${plan.scenarios.length} scenario file(s), not the shipped ${CERTIFYING_SUITE} suite for ${evidence.route} (${want.size} files)${missing.length > 0 ? `: ${missing.length} missing (${list(missing)})` : ''}${extra.length > 0 ? `; ${extra.length} not in it or changed (${list(extra)})` : ''}`,
    };
  // A run asked for the full suite recorded its files' digest: they must be the ones shipped now.
  // (Joined runs record none: their scenario files were compared above, content by content.)
  const shippedDigest = suiteDigest(CERTIFYING_SUITE).digest;
  if (
    typeof recorded === 'object' &&
    recorded !== null &&
    recorded.name === CERTIFYING_SUITE &&
    recorded.digest !== shippedDigest
  )
    return {
      ok: false,
      detail: `the ${CERTIFYING_SUITE} suite's files changed since the run (suite digest differs)`,
    };
  return {
    ok: true,
    detail: `the shipped ${CERTIFYING_SUITE} suite: all ${want.size} scenario files that fit ${evidence.route}, as shipped (suite ${shippedDigest.slice(7, 19)}…)`,
  };
}
