import type { ConnectorCode } from '../../src/contracts/certification.ts';
import { runtimeDigest } from '../../src/cli/code-digest.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import type { LineCheck } from './suite-check.ts';

const short = (digest: string) => digest.replace(/^sha256:/, '').slice(0, 12);

/**
 * Whether the evidence ran exactly the code this runtime has now: each connector's digest and the
 * runtime's (what the record will bind, and what `dpone run` will compare). Evidence from another
 * build, or written by hand without them, fails.
 */
export function checkCode(evidence: Evidence, running: readonly ConnectorCode[] | null): LineCheck {
  const code = (
    evidence.environment as {
      code?: { connectors?: unknown; runtime?: unknown; changed_during_run?: unknown };
    }
  ).code;
  if (code?.changed_during_run === true)
    return {
      ok: false,
      detail: 'the code or suite changed while the cells ran: the evidence is of no single build',
    };
  if (
    typeof code !== 'object' ||
    code === null ||
    !Array.isArray(code.connectors) ||
    typeof code.runtime !== 'string'
  )
    return {
      ok: false,
      detail: 'the evidence records no code digests (connectors, runtime): it cannot be bound to code',
    };
  if (running === null || running.length === 0)
    return { ok: false, detail: `this runtime has no connectors for route ${evidence.route}` };
  const recorded = code.connectors as readonly ConnectorCode[];
  for (const connector of [...running].sort((a, b) =>
    a.role === b.role ? 0 : a.role === 'target' ? -1 : 1,
  )) {
    const ran = recorded.find((entry) => entry.role === connector.role && entry.name === connector.name);
    if (!ran)
      return { ok: false, detail: `the evidence names no ${connector.role} connector ${connector.name}` };
    if (ran.digest !== connector.digest)
      return {
        ok: false,
        detail: `${connector.role} connector ${connector.name}: the evidence ran ${short(ran.digest)}…, this runtime has ${short(connector.digest)}…`,
      };
  }
  const runtime = runtimeDigest().digest;
  if (code.runtime !== runtime)
    return {
      ok: false,
      detail: `runtime: the evidence ran ${short(code.runtime)}…, this runtime is ${short(runtime)}…`,
    };
  return {
    ok: true,
    detail: `${running.map((entry) => `${entry.role} ${entry.name} ${short(entry.digest)}…`).join(', ')}, runtime ${short(runtime)}…: the code this runtime runs`,
  };
}
