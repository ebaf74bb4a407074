import { createHash } from 'node:crypto';
import type { DsseEnvelope, InTotoStatement, SigstoreBundle } from '../../contracts/certification.ts';
import {
  BUNDLE_MEDIA_TYPE,
  IN_TOTO_PAYLOAD_TYPE,
  STATEMENT_TYPE,
  preAuthEncoding,
} from '../../contracts/certification.ts';
import type { SigningKey, VerifyingKey } from './signing-key.ts';

/** The statement's bytes, as signed: its JSON, exactly as the envelope carries it. */
export function statementBytes(statement: InTotoStatement): Buffer {
  return Buffer.from(JSON.stringify(statement), 'utf8');
}

/**
 * The record digest: sha256 of the signed payload (the statement's bytes). One record, one digest,
 * whoever signed it and however often: what a policy revokes and `certify explain` prints.
 */
export function recordDigest(payload: Uint8Array): string {
  return `sha256:${createHash('sha256').update(payload).digest('hex')}`;
}

/** A key-file-signed bundle: DSSE envelope, public-key hint, no transparency-log entry. */
export function signWithKey(statement: InTotoStatement, key: SigningKey): SigstoreBundle {
  const payload = statementBytes(statement);
  const signature = key.sign(preAuthEncoding(IN_TOTO_PAYLOAD_TYPE, payload));
  return {
    mediaType: BUNDLE_MEDIA_TYPE,
    verificationMaterial: { publicKey: { hint: key.keyid }, tlogEntries: [] },
    dsseEnvelope: {
      payloadType: IN_TOTO_PAYLOAD_TYPE,
      payload: payload.toString('base64'),
      signatures: [{ keyid: key.keyid, sig: signature.toString('base64') }],
    },
  };
}

/** What a file holds, read without trusting it. */
export type ParsedRecord =
  | {
      readonly kind: 'bundle';
      readonly bundle: SigstoreBundle;
      readonly statement: InTotoStatement;
      readonly payload: Buffer;
      readonly signer: 'key' | 'keyless';
    }
  | { readonly kind: 'unsigned'; readonly statement: InTotoStatement; readonly payload: Buffer }
  | { readonly kind: 'malformed'; readonly problem: string };

function isStatement(value: unknown): value is InTotoStatement {
  const statement = value as Partial<InTotoStatement> | null;
  return (
    typeof statement === 'object' &&
    statement !== null &&
    statement._type === STATEMENT_TYPE &&
    Array.isArray(statement.subject) &&
    typeof statement.predicateType === 'string' &&
    typeof statement.predicate === 'object' &&
    statement.predicate !== null
  );
}

function isEnvelope(value: unknown): value is DsseEnvelope {
  const envelope = value as Partial<DsseEnvelope> | null;
  return (
    typeof envelope === 'object' &&
    envelope !== null &&
    typeof envelope.payloadType === 'string' &&
    typeof envelope.payload === 'string' &&
    Array.isArray(envelope.signatures)
  );
}

/**
 * Parses a record file's JSON: a Sigstore bundle (v0.3) holding a DSSE envelope with an in-toto
 * statement, or a bare statement (an unsigned, review-only record). Anything else is malformed.
 */
export function parseRecord(value: unknown): ParsedRecord {
  if (isStatement(value)) return { kind: 'unsigned', statement: value, payload: statementBytes(value) };
  const bundle = value as Partial<SigstoreBundle> | null;
  if (typeof bundle !== 'object' || bundle === null || bundle.mediaType === undefined)
    return { kind: 'malformed', problem: 'neither a Sigstore bundle nor an in-toto statement' };
  if (bundle.mediaType !== BUNDLE_MEDIA_TYPE)
    return {
      kind: 'malformed',
      problem: `bundle media type ${String(bundle.mediaType)} is not ${BUNDLE_MEDIA_TYPE}`,
    };
  if (!isEnvelope(bundle.dsseEnvelope) || typeof bundle.verificationMaterial !== 'object')
    return { kind: 'malformed', problem: 'the bundle holds no DSSE envelope' };
  if (bundle.dsseEnvelope.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    return { kind: 'malformed', problem: `the envelope's payload type is not ${IN_TOTO_PAYLOAD_TYPE}` };
  const payload = Buffer.from(bundle.dsseEnvelope.payload, 'base64');
  let statement: unknown;
  try {
    statement = JSON.parse(payload.toString('utf8'));
  } catch {
    return { kind: 'malformed', problem: 'the envelope payload is not JSON' };
  }
  if (!isStatement(statement))
    return { kind: 'malformed', problem: 'the envelope payload is not an in-toto Statement v1' };
  const material = bundle.verificationMaterial!;
  const signer = material.certificate !== undefined ? 'keyless' : 'key';
  return { kind: 'bundle', bundle: bundle as SigstoreBundle, statement, payload, signer };
}

/** Whether one of the envelope's signatures verifies under `key` (over the PAE of its payload). */
export function verifyWithKey(bundle: SigstoreBundle, key: VerifyingKey): boolean {
  const envelope = bundle.dsseEnvelope;
  const pae = preAuthEncoding(envelope.payloadType, Buffer.from(envelope.payload, 'base64'));
  return envelope.signatures.some(
    (signature) =>
      typeof signature?.sig === 'string' && key.verify(pae, Buffer.from(signature.sig, 'base64')),
  );
}
