import { describe, expect, it } from 'vitest';
import { MANDATORY_ACCEPTANCE_ITEMS } from '../../src/contracts/certification.ts';
import type { ConnectorEndpoint } from '../../src/ports/connector-plugin.ts';
import { routeConnectorVersion } from '../../src/cli/certifications.ts';
import { exampleCopy } from '../../src/cli/commands/example-workload.test-support.ts';
import { embeddedEngine } from '../../src/cli/engine-roles.ts';
import { SOURCE_ENGINES } from '../../src/cli/engine-table.ts';
import { expectTableLine } from '../../src/cli/engine-table.test-support.ts';
import { routeAcceptanceItems } from '../../src/cli/route-acceptance.ts';
import { isBuiltInRouteId } from '../../src/cli/workload-fields.ts';
import { readWorkloadFile } from '../../src/cli/workload-file.ts';
import { CLICKHOUSE_ENGINE } from './engine.ts';

/** The embedded engine: the example workload's route, source and target. */
const [EMBEDDED] = embeddedEngine();

describe('ClickHouse in the built-in engines table', () => {
  it('is a source and a target, with its folder; its name is a route into it from any source', () => {
    expectTableLine('clickhouse', CLICKHOUSE_ENGINE, ['source', 'target']);
    expect(isBuiltInRouteId('clickhouse')).toBe(true);
  });

  it('keeps the connector version a route into it shows in evidence and records', () => {
    expect(routeConnectorVersion(`${EMBEDDED}-to-clickhouse`)).toBe(
      `${EMBEDDED}-source/1+clickhouse-staging-swap-generation/1`,
    );
  });

  it('a record for a route into it lacks the mandatory items only (no items of its own, no plain writes)', () => {
    expect(routeAcceptanceItems(`${EMBEDDED}-to-clickhouse`)).toEqual(MANDATORY_ACCEPTANCE_ITEMS);
  });
});

// The example's own (embedded) source URL, and each server source engine's (no server is reached).
const SOURCES: readonly (readonly [url: string, engine: string])[] = Object.keys(SOURCE_ENGINES).map(
  (engine) =>
    [
      engine === EMBEDDED ? `'${EMBEDDED}:data/source.db'` : `'${engine}://etl@127.0.0.1:8123/dw'`,
      engine,
    ] as const,
);

describe('the clickhouse route’s source', () => {
  it.each(SOURCES)('source url %s opens a %s source (without connecting)', async (url, engine) => {
    const example = exampleCopy();
    const workload = await readWorkloadFile(
      example.variant('ch.yaml', (text) =>
        text
          .replace(`route: ${EMBEDDED}`, 'route: clickhouse')
          .replace(`url: '${EMBEDDED}:data/source.db'`, `url: ${url}`)
          .replace(`url: '${EMBEDDED}:data/target.db'`, "url: 'clickhouse://etl@127.0.0.1:8123/dw'"),
      ),
      example.dir,
    );
    expect(workload.route).toBe(`${engine}-to-clickhouse`);
    // A built-in source reads its endpoint from the workload the host hands it (HostContext).
    await using source = await SOURCE_ENGINES[engine]!.open({} as ConnectorEndpoint, { workload, env: {} });
    expect(source.identity.startsWith(`${engine}:`)).toBe(true);
  });
});
