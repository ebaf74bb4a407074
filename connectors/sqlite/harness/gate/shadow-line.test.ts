import { describe, expect, it } from 'vitest';
import { acceptanceItems } from '../../../../harness/gate/acceptance-items.ts';

describe('shadow-report-exact (issue 36) on routes into SQLite', () => {
  it('applies to its own route, by alias and by id: the target takes plain writes', () => {
    for (const route of ['sqlite', 'sqlite-to-sqlite'])
      expect(
        acceptanceItems(route).map((item) => item.id),
        route,
      ).toContain('shadow-report-exact');
  });
});
