import { describe, expect, it } from 'vitest';
import type { CertificationRecord } from './deployment-policy.ts';
import { CERTIFICATION_SCHEMA, decideDeploymentPolicy, isCertificationRecord } from './deployment-policy.ts';

const record = (overrides: Partial<Record<keyof CertificationRecord, unknown>> = {}): CertificationRecord =>
  ({
    schema: CERTIFICATION_SCHEMA,
    route: 'sqlite',
    connector_version: 'sqlite-v1',
    runtime_version: '0.1.0',
    evidence_digest: `sha256:${'a'.repeat(64)}`,
    evidence_run_id: 'run-1',
    seed: 42,
    certified_at: '2026-11-30T01:00:00.000Z',
    acceptance: [{ item: 'kill-every-transition', status: 'PASS' }],
    ...overrides,
  }) as CertificationRecord;

describe('deployment policy', () => {
  it('enforces protection for a route certified for this connector version', () => {
    const decision = decideDeploymentPolicy([record()], 'sqlite', 'sqlite-v1');
    expect(decision.mode).toBe('enforced');
    expect(decision.certification).toEqual({
      evidence_digest: `sha256:${'a'.repeat(64)}`,
      certified_at: '2026-11-30T01:00:00.000Z',
    });
  });

  it('runs legacy, claiming nothing, without any certification', () => {
    const decision = decideDeploymentPolicy([], 'sqlite', 'sqlite-v1');
    expect(decision).toMatchObject({ mode: 'legacy', certification: null });
    expect(decision.reason).toContain('no duplicate-write protection is claimed');
  });

  it('runs legacy when the certification names another connector version', () => {
    const decision = decideDeploymentPolicy(
      [record({ connector_version: 'sqlite-v0' })],
      'sqlite',
      'sqlite-v1',
    );
    expect(decision.mode).toBe('legacy');
    expect(decision.reason).toContain('certified for connector sqlite-v0, not sqlite-v1');
  });

  it('runs legacy for another route’s certification or an unknown connector version', () => {
    expect(decideDeploymentPolicy([record({ route: 'postgres' })], 'sqlite', 'sqlite-v1').mode).toBe(
      'legacy',
    );
    expect(decideDeploymentPolicy([record()], 'sqlite', null).mode).toBe('legacy');
  });

  it('trusts no malformed record: wrong schema, bad digest, bad date, a non-PASS item, junk', () => {
    const bad = [
      record({ schema: 'dpone.certification/v0' }),
      record({ evidence_digest: 'sha256:abc' }),
      record({ certified_at: 'yesterday' }),
      record({ acceptance: [{ item: 'x', status: 'UNVERIFIED' }] }),
      record({ acceptance: [] }),
      null,
      'sqlite',
      { route: 'sqlite' },
    ];
    for (const candidate of bad) expect(isCertificationRecord(candidate)).toBe(false);
    expect(decideDeploymentPolicy(bad, 'sqlite', 'sqlite-v1').mode).toBe('legacy');
  });

  it('relies on the newest matching certification', () => {
    const older = record({
      evidence_digest: `sha256:${'b'.repeat(64)}`,
      certified_at: '2026-01-01T00:00:00Z',
    });
    const decision = decideDeploymentPolicy([older, record()], 'sqlite', 'sqlite-v1');
    expect(decision.certification?.evidence_digest).toBe(`sha256:${'a'.repeat(64)}`);
  });

  it('runs legacy on a journal that can die with the worker, saying why, even for a certified route', () => {
    const local = {
      kind: 'sqlite',
      location: 'sqlite:///pod/state/journal.db',
      durable: false,
      reason: 'a local SQLite file can be lost with the worker',
    };
    const decision = decideDeploymentPolicy([record()], 'sqlite', 'sqlite-v1', local);
    expect(decision).toMatchObject({ mode: 'legacy', certification: null });
    expect(decision.reason).toMatch(
      /certified for connector sqlite-v1, but its journal \(sqlite\) is not durable: a local/,
    );
    const server = { ...local, kind: 'postgres', location: 'postgres://db:5432/dpone', durable: true };
    expect(decideDeploymentPolicy([record()], 'sqlite', 'sqlite-v1', server).mode).toBe('enforced');
  });
});
