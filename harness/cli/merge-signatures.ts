import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { CliIO } from '../../src/cli/command.ts';
import { readCandidate } from '../../src/cli/certifications.ts';
import { readTrustPolicy } from '../../src/cli/trust-policy-file.ts';
import { EVIDENCE_PREDICATE, hexOf } from '../../src/contracts/certification.ts';
import { invalidInput } from '../../src/contracts/errors.ts';
import { POLICY_ENV, signerAllows } from '../../src/contracts/trust-policy.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import { RECORD_FILES } from '../gate/certification-record.ts';

/**
 * The inputs of a signing merge that are not signed by a signer of the policy (`--policy` or
 * `$DPONE_POLICY`): each needs `evidence.sigstore.json` beside it, whose signature verifies and
 * whose statement binds exactly that evidence's digest. One line per refused input, saying why.
 */
export async function unsignedInputs(
  inputs: readonly { readonly file: string; readonly evidence: Evidence }[],
  policyFlag: string | undefined,
  io: CliIO,
): Promise<string[]> {
  const named = policyFlag ?? io.env[POLICY_ENV];
  if (!named)
    throw invalidInput(
      `a signing merge verifies its inputs' signatures: name the trust policy (--policy FILE or ${POLICY_ENV})`,
      {
        field: '--policy',
      },
    );
  const policy = await readTrustPolicy(
    resolve(io.cwd, named),
    policyFlag !== undefined ? '--policy' : POLICY_ENV,
  );
  const refused: string[] = [];
  for (const { file, evidence } of inputs) {
    const signature = join(dirname(resolve(io.cwd, file)), RECORD_FILES.evidence);
    if (!existsSync(signature)) {
      refused.push(`${file}: no ${RECORD_FILES.evidence} beside it (run it with --sign)`);
      continue;
    }
    const candidate = await readCandidate(signature, policy!);
    if (candidate.problem !== null) refused.push(`${file}: ${candidate.problem}`);
    else if (!signerAllows(candidate.signer!, evidence.route))
      refused.push(`${file}: signer ${candidate.signer!.name} may not enable route ${evidence.route}`);
    else if (candidate.predicateType !== EVIDENCE_PREDICATE)
      refused.push(`${file}: the signature is not over evidence`);
    else if (!candidate.subjects.some((subject) => subject.digest.sha256 === hexOf(evidence.digest ?? '')))
      refused.push(`${file}: the signature is over other evidence (digest differs)`);
  }
  return refused;
}
