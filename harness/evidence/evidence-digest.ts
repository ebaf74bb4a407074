import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import type { Evidence } from './evidence-types.ts';

/** `sha256:` + hex of the canonical JSON of the evidence without its `digest` member. */
export function evidenceDigest(evidence: Evidence): string {
  const { digest: _digest, ...content } = evidence;
  return `sha256:${createHash('sha256').update(canonicalJson(content)).digest('hex')}`;
}

/** The evidence with its digest set (replacing any stored one). */
export function withDigest(evidence: Evidence): Evidence {
  return { ...evidence, digest: evidenceDigest(evidence) };
}
