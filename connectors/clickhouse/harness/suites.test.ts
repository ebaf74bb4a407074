import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONNECTOR_PARTS } from '../../../harness/routes/route-registry.ts';
import { defaultScenarioFiles } from '../../../harness/scenario/scenario-suites.ts';

const names = (files: readonly string[]) => files.map((file) => basename(file));

describe('the suites of a route into ClickHouse', () => {
  it('a server source brings the server faults, not the scenarios named for it as a target', async () => {
    // The server source that keeps a journal of its own (and has scenarios named for it as a target).
    const source = Object.keys(CONNECTOR_PARTS).find((engine) => {
      const { service, roles } = CONNECTOR_PARTS[engine]!;
      return service !== undefined && roles.includes('source') && roles.includes('journal');
    })!;
    const clickhouse = names(await defaultScenarioFiles(`${source}-to-clickhouse`, process.cwd(), 'full'));
    expect(clickhouse).toEqual(expect.arrayContaining(['network.yaml', 'server-kill.yaml', 'crash.yaml']));
    expect(clickhouse).not.toContain(`${source}-journal-loss.yaml`);
  });
});
