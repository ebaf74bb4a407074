import { resolve } from 'node:path';
import type { CliIO, CommandRun } from '../../src/cli/command.ts';
import { parseFlags, required } from '../../src/cli/args.ts';
import { DEFAULT_CERTIFICATIONS_DIR, routeConnectorVersion } from '../../src/cli/certifications.ts';
import { resolveRouteId } from '../../src/contracts/route-id.ts';
import { readEvidence, verifyEvidence } from '../evidence/evidence-writer.ts';
import { certificationRecord, writeCertification } from '../gate/certification-record.ts';
import { evaluateGate, formatGateLine } from '../gate/gate.ts';
import { checkPlan } from '../plan/plan-check.ts';
import { pluginRoutes } from '../routes/plugin-routes.ts';
import { ROUTES } from '../routes/route-registry.ts';
import { prepareOutDir } from './out-dir.ts';

/**
 * The connector version this installation runs for the route: a built-in's, or the version of the
 * plug-in module that declares it (as installed now: evidence of another version does not certify it).
 */
async function shippedVersion(
  route: string,
  io: CliIO,
  values: { readonly connector?: readonly string[] },
): Promise<string | null> {
  if (Object.hasOwn(ROUTES, route)) return routeConnectorVersion(route);
  const plugins = await pluginRoutes(io.cwd, values.connector ?? []);
  const load = Object.hasOwn(plugins, route) ? plugins[route] : undefined;
  return load ? (await load()).connectorVersion : null;
}

/**
 * `dpone certify gate --route ID --evidence FILE [--out DIR] [--json]`: one line per mandatory
 * acceptance item (and precondition) with its status and how many cells decided it. The plan is
 * derived again from the scenario files (relative to the working folder), seed and recorded traces;
 * evidence missing a planned cell, or holding one the plan lacks, does not pass. Exit 0 only when every line is PASS; then
 * DIR/<route>.json (default certifications/) is written for the deployment policy. Exit 1
 * otherwise (nothing is written); exit 2 for bad input.
 */
export const run: CommandRun = async (args: readonly string[], io: CliIO) => {
  const { values } = parseFlags(args, {
    route: { type: 'string' },
    evidence: { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean' },
    connector: { type: 'string', multiple: true },
  });
  // An alias (`--route sqlite`) gates its full id: the certification names the full id.
  const named = required(values.route, '--route');
  const route = resolveRouteId(named)?.id ?? named;
  const file = required(values.evidence, '--evidence');
  const dir = resolve(io.cwd, values.out ?? DEFAULT_CERTIFICATIONS_DIR);
  await prepareOutDir(dir, '--out', { create: false });
  const evidence = readEvidence(resolve(io.cwd, file));
  const gate = evaluateGate(
    evidence,
    route,
    verifyEvidence(evidence),
    await shippedVersion(route, io, values),
    await checkPlan(evidence, io.cwd, values.connector ?? []),
  );
  let written: string | null = null;
  if (gate.passed) {
    written = await writeCertification(certificationRecord(evidence, gate, new Date()), dir);
  }
  if (values.json) {
    io.stdout.write(
      `${JSON.stringify({ schema: 'dpone.certify.gate/v1', route, evidence: file, passed: gate.passed, lines: gate.lines, certification: written })}\n`,
    );
  } else {
    io.stdout.write(`dpone certify gate: route ${route}, evidence ${file}\n`);
    for (const line of gate.lines) io.stdout.write(`${formatGateLine(line)}\n`);
    io.stdout.write(
      gate.passed
        ? `gate PASS: certification written to ${written}\n`
        : 'gate FAIL: the route stays on legacy retry semantics (no certification written)\n',
    );
  }
  return gate.passed ? 0 : 1;
};
