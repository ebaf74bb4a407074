import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CliIO } from '../../src/cli/command.ts';
import type { InTotoStatement, SigstoreBundle } from '../../src/contracts/certification.ts';
import { CERTIFYING_SUITE } from '../../src/contracts/certification.ts';
import { invalidInput } from '../../src/contracts/errors.ts';
import { signWithKey } from '../../src/adapters/attestation/dsse-bundle.ts';
import type { SigningKey } from '../../src/adapters/attestation/signing-key.ts';
import { signingKeyFromPem } from '../../src/adapters/attestation/signing-key.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import {
  RECORD_FILES,
  certificationStatement,
  evidenceStatement,
  writeJsonFile,
} from '../gate/certification-record.ts';
import { gateEvidence } from '../gate/gate-evidence.ts';
import type { GateResult } from '../gate/gate.ts';
import { formatGateLine } from '../gate/gate.ts';

/** The flags of a command that gates and signs what it produced (`certify run`, `certify merge`). */
export const SIGNING_FLAGS = {
  gate: { type: 'boolean' },
  sign: { type: 'boolean' },
  key: { type: 'string' },
  keyless: { type: 'boolean' },
} as const;

/** How this process will sign, decided (and the key read) before any work. */
export interface Signing {
  readonly gate: boolean;
  readonly route: string | undefined;
  readonly sign: { readonly kind: 'key'; readonly key: SigningKey } | { readonly kind: 'keyless' } | null;
}

interface SigningValues {
  readonly gate?: boolean;
  readonly sign?: boolean;
  readonly key?: string;
  readonly keyless?: boolean;
  readonly suite?: string;
  readonly scenario?: readonly string[];
  readonly shard?: string;
  readonly route?: string;
}

/**
 * Checks the signing flags and reads the key before anything runs: `--sign` needs exactly one of
 * `--key FILE` (a PEM private key: ed25519 or ECDSA P-256) and `--keyless`; `--gate --sign` is a
 * certification and so needs `--suite full` and a whole run (no `--shard`, no `--scenario`).
 */
export async function checkSigningFlags(values: SigningValues, io: CliIO, merging = false): Promise<Signing> {
  if (!values.sign) {
    if (values.key !== undefined || values.keyless)
      throw invalidInput('--key and --keyless sign: pass --sign with them', { field: '--sign' });
    return { gate: values.gate === true, route: values.route, sign: null };
  }
  if ((values.key !== undefined) === (values.keyless === true))
    throw invalidInput('--sign needs exactly one of --key FILE and --keyless', { field: '--sign' });
  if (values.gate && !merging) {
    if (values.suite !== CERTIFYING_SUITE || values.scenario !== undefined)
      throw invalidInput(`--gate --sign certifies a route: it needs --suite ${CERTIFYING_SUITE}`, {
        field: '--suite',
      });
    if (values.shard !== undefined)
      throw invalidInput('--gate --sign needs a whole run: sign the shards (--sign) and gate their merge', {
        field: '--shard',
      });
  }
  if (values.keyless) return { gate: values.gate === true, route: values.route, sign: { kind: 'keyless' } };
  const file = resolve(io.cwd, values.key!);
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch {
    throw invalidInput(`--key ${file} cannot be read`, { field: '--key' });
  }
  return {
    gate: values.gate === true,
    route: values.route,
    sign: { kind: 'key', key: signingKeyFromPem(pem, '--key') },
  };
}

/** Signs a statement as asked: with the key file, or keyless through Sigstore (CI's OIDC identity). */
export async function signStatement(
  statement: InTotoStatement,
  signing: NonNullable<Signing['sign']>,
): Promise<SigstoreBundle> {
  if (signing.kind === 'key') return signWithKey(statement, signing.key);
  const { signKeyless } = await import('../../src/adapters/attestation/keyless.ts');
  return signKeyless(statement);
}

function describeSigner(signing: NonNullable<Signing['sign']>): string {
  return signing.kind === 'key'
    ? `key ${signing.key.keyid} (${signing.key.algorithm})`
    : 'keyless (Sigstore)';
}

/**
 * After a run (or merge) this process produced `evidence` itself: with `--gate`, gate it and write
 * the certification record beside it — signed when `--sign`, else unsigned and review-only; with
 * `--sign` alone, sign the evidence (what a merge verifies). Returns 1 when the gate failed, else 0.
 */
export async function gateAndSign(
  evidence: Evidence,
  dir: string,
  signing: Signing,
  connectors: readonly string[],
  io: CliIO,
  /** The gate already evaluated on this evidence (for the reports), so it is not evaluated twice. */
  evaluated?: GateResult,
): Promise<number> {
  if (!signing.gate) {
    if (signing.sign === null) return 0;
    const file = await writeJsonFile(
      dir,
      RECORD_FILES.evidence,
      await signStatement(evidenceStatement(evidence), signing.sign),
    );
    io.stdout.write(`evidence signed with ${describeSigner(signing.sign)}: ${file}\n`);
    return 0;
  }
  const gate = evaluated ?? (await gateEvidence(evidence, evidence.route, io.cwd, connectors));
  io.stdout.write(`dpone certify gate: route ${evidence.route}, evidence ${evidence.digest ?? '?'}\n`);
  for (const line of gate.lines) io.stdout.write(`${formatGateLine(line)}\n`);
  if (!gate.passed) {
    io.stdout.write('gate FAIL: the route stays on legacy retry semantics (no certification written)\n');
    return 1;
  }
  const statement = certificationStatement(evidence, gate, new Date(), signing.sign === null);
  if (signing.sign === null) {
    const file = await writeJsonFile(dir, RECORD_FILES.unsigned, statement);
    io.stdout.write(`gate PASS: unsigned record written for review only (no runtime trusts it): ${file}\n`);
    return 0;
  }
  const file = await writeJsonFile(dir, RECORD_FILES.signed, await signStatement(statement, signing.sign));
  io.stdout.write(`gate PASS: certification signed with ${describeSigner(signing.sign)}: ${file}\n`);
  return 0;
}
