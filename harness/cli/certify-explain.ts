import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliIO, CommandRun } from '../../src/cli/command.ts';
import { parseFlags } from '../../src/cli/args.ts';
import { readCandidate, runningCode } from '../../src/cli/certifications.ts';
import { routeAcceptanceItems } from '../../src/cli/route-acceptance.ts';
import { policyLocation, readTrustPolicy } from '../../src/cli/trust-policy-file.ts';
import { parseRecord, recordDigest } from '../../src/adapters/attestation/dsse-bundle.ts';
import type { CertificationPredicate } from '../../src/contracts/certification.ts';
import { invalidInput } from '../../src/contracts/errors.ts';
import { decideDeploymentPolicy } from '../../src/core/deployment-policy.ts';
import { loadRouteOrPlugin } from '../routes/route-loader.ts';

/**
 * `dpone certify explain RECORD [--policy FILE] [--json]`: what a record binds (route, connector
 * code, runtime, harness, suite and evidence digests, engines, commit, who ran it, how it is signed)
 * and whether this runtime would trust it: the same checks `dpone run` makes, against the policy
 * (--policy, else $DPONE_POLICY) and the code installed here. Offline. Exit 0 when it would run the
 * route enforced, 1 when not, 2 for bad input.
 */
export const run: CommandRun = async (args: readonly string[], io: CliIO) => {
  const { values, positionals } = parseFlags(
    args,
    { policy: { type: 'string' }, json: { type: 'boolean' }, connector: { type: 'string', multiple: true } },
    { positionals: true },
  );
  if (positionals.length !== 1)
    throw invalidInput('certify explain takes exactly one RECORD file', { field: 'RECORD' });
  const file = resolve(io.cwd, positionals[0]!);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw invalidInput(`${file} is not a readable JSON record`, { field: 'RECORD' });
  }
  const parsed = parseRecord(value);
  if (parsed.kind === 'malformed') throw invalidInput(`${file}: ${parsed.problem}`, { field: 'RECORD' });
  const record = parsed.statement.predicate as CertificationPredicate;
  const signedBy =
    parsed.kind === 'unsigned'
      ? 'unsigned (review only)'
      : parsed.signer === 'key'
        ? `key ${parsed.bundle.verificationMaterial.publicKey?.hint ?? '?'}`
        : 'keyless (Sigstore certificate and Rekor entry)';
  const location = policyLocation(values.policy, io.env, io.cwd, null);
  const policy = location === null ? null : await readTrustPolicy(location.file, location.source);
  let connectors: Awaited<ReturnType<typeof loadRouteOrPlugin>> | null = null;
  try {
    connectors = await loadRouteOrPlugin(record.route, { cwd: io.cwd, connectors: values.connector ?? [] });
  } catch {
    // a route this build lacks: the decision says so
  }
  const decision = await decideDeploymentPolicy({
    route: record.route,
    connectorVersion: record.connector_version,
    policy,
    lookedFor: 'none named: pass --policy FILE or set DPONE_POLICY',
    candidates: policy === null ? [] : [await readCandidate(file, policy)],
    running: runningCode(async () => (connectors === null ? null : connectors.code())),
    requiredItems: routeAcceptanceItems(record.route),
  });
  const digest = recordDigest(parsed.payload);
  if (values.json) {
    io.stdout.write(
      `${JSON.stringify({ schema: 'dpone.certify.explain/v1', record: digest, signed_by: signedBy, statement: parsed.statement, trusted: decision.mode === 'enforced', decision })}\n`,
    );
    return decision.mode === 'enforced' ? 0 : 1;
  }
  const out = (line: string) => io.stdout.write(`${line}\n`);
  out(`record     ${digest}  (${file})`);
  out(`signed by  ${signedBy}`);
  out(`route      ${record.route}${record.review_only ? '  REVIEW ONLY: certifies nothing' : ''}`);
  for (const connector of record.connectors ?? [])
    out(`connector  ${connector.role} ${connector.name} ${connector.digest}`);
  out(`runtime    dpone-cert ${record.runtime?.version} ${record.runtime?.digest}`);
  out(`harness    ${record.harness?.digest}`);
  out(
    `suite      ${record.suite?.name} ${record.suite?.digest} (${record.suite?.scenarios?.length ?? 0} scenario files)`,
  );
  out(
    `evidence   ${record.evidence?.digest} run ${record.evidence?.run_id}, ${record.evidence?.cells} cells, seed ${record.evidence?.seed}`,
  );
  out(
    `engines    ${Object.entries(record.engines ?? {})
      .map(([name, version]) => `${name} ${version}`)
      .join(', ')}`,
  );
  out(
    `commit     ${record.git ? `${record.git.commit}${record.git.dirty ? ' (uncommitted changes)' : ''}` : 'none (not a git checkout)'}`,
  );
  out(
    `ran by     ${record.ran_by?.kind} ${record.ran_by?.where}${record.ran_by?.workflow ? ` (${record.ran_by.workflow})` : ''}`,
  );
  out(
    `certified  ${record.certified_at}; ${(record.acceptance ?? []).filter((entry) => entry.status === 'PASS').length}/${record.acceptance?.length ?? 0} gate lines PASS`,
  );
  out(
    decision.mode === 'enforced'
      ? `trusted: this runtime would run route ${record.route} enforced (${decision.reason})`
      : `NOT trusted: ${decision.reason}`,
  );
  return decision.mode === 'enforced' ? 0 : 1;
};
