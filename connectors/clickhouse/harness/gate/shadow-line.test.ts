import { describe, expect, it } from 'vitest';
import { acceptanceItems } from '../../../../harness/gate/acceptance-items.ts';
import { EMBEDDED_ENGINE } from '../../../../harness/routes/route-registry.ts';

describe('shadow-report-exact (issue 36) on routes into ClickHouse', () => {
  it('does not apply: the target writes through staging only, never plainly', () => {
    expect(acceptanceItems(`${EMBEDDED_ENGINE}-to-clickhouse`).map((item) => item.id)).not.toContain(
      'shadow-report-exact',
    );
  });
});
