import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { invalidInput } from '../contracts/errors.ts';
import { resolveRouteId } from './route-names.ts';
import type { RevokedRecord, TrustPolicy, TrustedSigner } from '../contracts/trust-policy.ts';
import { POLICY_ENV, POLICY_FILE_NAME } from '../contracts/trust-policy.ts';
import { verifyingKeyFromPem } from '../adapters/attestation/signing-key.ts';
import { MAX_BYTES, readBoundedText } from './bounded-file.ts';

/**
 * Where the trust policy is, in this order: `--policy FILE`, `$DPONE_POLICY`, else
 * `dpone-policy.yaml` in the workload's folder. Never the working folder: what decides
 * protection must not change with where a process happens to start.
 */
export function policyLocation(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
  workloadDir: string | null,
): { readonly file: string; readonly source: string } | null {
  if (flag !== undefined) return { file: resolve(cwd, flag), source: '--policy' };
  const named = env[POLICY_ENV];
  if (named) return { file: resolve(cwd, named), source: POLICY_ENV };
  return workloadDir === null
    ? null
    : { file: resolve(workloadDir, POLICY_FILE_NAME), source: 'beside the workload' };
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
// One section today; per-deployment rollout modes join it as a section of their own.
const KEYS = new Set(['trust']);
const TRUST_KEYS = new Set(['records', 'signers', 'revoked', 'trusted_root']);
const SIGNER_KEYS = new Set(['name', 'routes', 'public_key', 'keyless']);

type Plain = Record<string, unknown>;
const isMap = (value: unknown): value is Plain =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw invalidInput(`${field} must be a non-empty string`, { field });
  return value;
}

function onlyKeys(value: Plain, allowed: ReadonlySet<string>, field: string): void {
  for (const key of Object.keys(value))
    if (!allowed.has(key))
      throw invalidInput(
        `${field ? `${field}.` : ''}${key} is not a policy key (known: ${[...allowed].join(', ')})`,
        {
          field: field ? `${field}.${key}` : key,
        },
      );
}

function routes(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.length === 0)
    throw invalidInput(`${field} must list the routes this signer may enable ('*' for every route)`, {
      field,
    });
  return value.map((route, index) => {
    const name = text(route, `${field}[${index}]`);
    return name === '*' ? name : (resolveRouteId(name)?.id ?? name);
  });
}

function signer(value: unknown, field: string, base: string): TrustedSigner {
  if (!isMap(value)) throw invalidInput(`${field} must be a map`, { field });
  onlyKeys(value, SIGNER_KEYS, field);
  const name = text(value.name, `${field}.name`);
  const allowed = routes(value.routes, `${field}.routes`);
  if ((value.public_key === undefined) === (value.keyless === undefined))
    throw invalidInput(`${field} must name exactly one of public_key and keyless`, { field });
  if (value.public_key !== undefined) {
    const key = text(value.public_key, `${field}.public_key`);
    const pem = key.includes('-----BEGIN') ? key : readKeyFile(resolve(base, key), `${field}.public_key`);
    // Checked here, so a policy with a broken key is refused at once, naming it.
    verifyingKeyFromPem(pem, `${field}.public_key`);
    return { kind: 'key', name, routes: allowed, publicKeyPem: pem };
  }
  const keyless = value.keyless;
  if (!isMap(keyless))
    throw invalidInput(`${field}.keyless must be a map of issuer and identity`, {
      field: `${field}.keyless`,
    });
  onlyKeys(keyless, new Set(['issuer', 'identity']), `${field}.keyless`);
  return {
    kind: 'keyless',
    name,
    routes: allowed,
    issuer: text(keyless.issuer, `${field}.keyless.issuer`),
    identity: text(keyless.identity, `${field}.keyless.identity`),
  };
}

function readKeyFile(file: string, field: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw invalidInput(`${field}: public key file ${file} cannot be read`, { field });
  }
}

function revoked(value: unknown, field: string): RevokedRecord[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalidInput(`${field} must be a list`, { field });
  return value.map((entry: unknown, index) => {
    const at = `${field}[${index}]`;
    if (!isMap(entry)) throw invalidInput(`${at} must be a map of record and reason`, { field: at });
    onlyKeys(entry, new Set(['record', 'reason']), at);
    const record = text(entry.record, `${at}.record`);
    if (!DIGEST.test(record))
      throw invalidInput(`${at}.record must be a record digest (sha256: + 64 hex)`, {
        field: `${at}.record`,
      });
    return { record, reason: text(entry.reason, `${at}.reason`) };
  });
}

/** Validates a parsed policy; paths resolve against the policy file's folder. */
export function trustPolicyFromValue(value: unknown, file: string): TrustPolicy {
  const base = dirname(file);
  if (!isMap(value)) throw invalidInput('a policy file is a map with a trust: section', { field: '(root)' });
  onlyKeys(value, KEYS, '');
  const trust = value.trust;
  if (!isMap(trust))
    throw invalidInput('trust must be a map (records, signers, revoked, trusted_root)', { field: 'trust' });
  onlyKeys(trust, TRUST_KEYS, 'trust');
  if (!Array.isArray(trust.signers))
    throw invalidInput('trust.signers must be a list', { field: 'trust.signers' });
  const signers = trust.signers.map((entry: unknown, index) =>
    signer(entry, `trust.signers[${index}]`, base),
  );
  const names = signers.map((entry) => entry.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined)
    throw invalidInput(`trust.signers names ${twice} twice`, { field: 'trust.signers' });
  const records = trust.records === undefined ? 'certifications' : text(trust.records, 'trust.records');
  const root = trust.trusted_root === undefined ? null : text(trust.trusted_root, 'trust.trusted_root');
  return {
    file,
    recordsDir: isAbsolute(records) ? records : resolve(base, records),
    signers,
    revoked: revoked(trust.revoked, 'trust.revoked'),
    trustedRoot: root === null ? null : resolve(base, root),
  };
}

/**
 * Reads the policy file: null when it does not exist (no policy: nothing is enforced); a file that
 * exists but is not a valid policy is bad input (exit 2) naming file:line:column and the key.
 */
export async function readTrustPolicy(file: string, source: string): Promise<TrustPolicy | null> {
  if (!existsSync(file)) {
    if (source === 'beside the workload') return null;
    throw invalidInput(`the trust policy ${file} (named by ${source}) does not exist`, { field: source });
  }
  const content = await readBoundedText(file, {
    what: 'trust policy',
    maxBytes: MAX_BYTES.workload,
    fields: { field: source },
  });
  // JSON is YAML too: a policy written as JSON is read without loading the YAML library.
  if (content.trimStart().startsWith('{')) {
    let value: unknown = undefined;
    try {
      value = JSON.parse(content);
    } catch {
      // not plain JSON after all: the YAML reader says where
    }
    if (value !== undefined) return trustPolicyFromValue(value, file);
  }
  const { parseYaml } = await import('./workload-yaml.ts');
  return parseYaml(content, file, (value) => trustPolicyFromValue(value, file));
}
