import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { defaultScenarioFiles } from '../scenario/scenario-suites.ts';
import { configuredConnectors, pluginRoutes } from './plugin-routes.ts';
import { CELL_TABLE, PLUGIN_SOURCE_DATA, writeSource } from './plugin-source.ts';
import { CONNECTOR_PARTS, EMBEDDED_ENGINE, embeddedHost, routeIds } from './route-registry.ts';
import { refuseUnshowableVariants } from './variant-data.ts';
import { startEmbedded } from './fixtures/embedded-cell.ts';
import { connect, createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { missingLocal, startLocal } from '../env/local/local-provider.ts';
import { installToxic } from '../faults/toxiproxy-switch.ts';
import { routeRuns } from '../scenario/route-suite.ts';
import { ENGINE_SERVICES, ENVIRONMENT_ENGINES } from './engine-services.ts';

/** A plug-in route's id and source: the embedded engine (every plug-in route's source) into a made-up target. */
const ROUTE_ID = `${EMBEDDED_ENGINE}-to-example`;
const PLUGIN_ROUTE = { id: ROUTE_ID, source: EMBEDDED_ENGINE };
/** A composed built-in route's id (the embedded source into another engine's target), not an alias. */
const COMPOSED_BUILT_IN = routeIds().find(
  (id) => id.startsWith(`${EMBEDDED_ENGINE}-to-`) && id !== `${EMBEDDED_ENGINE}-to-${EMBEDDED_ENGINE}`,
)!;
/** Scenario files named for a server engine (the embedded engine's are its own route's). */
const SERVER_SCENARIO = new RegExp(
  `^(${Object.keys(CONNECTOR_PARTS)
    .filter((engine) => engine !== EMBEDDED_ENGINE)
    .join('|')})-`,
);

/** A folder holding one plug-in module whose harness declares `routes` (written as JSON). */
function pluginFolder(routes: unknown, packageJson?: unknown, targetExtra = '', connectorExtra = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-plugin-routes-'));
  writeFileSync(
    join(dir, 'plugin.mjs'),
    `export default {
      api: 'dpone.connector/v1',
      meta: { name: 'dpone-connector-example', version: '2.3.4' },
      target: { capability: 'transactional-commit-marker', fenceLocation: () => 'x', open: async () => { throw new Error('not opened'); }${connectorExtra} },
      harness: { routes: ${JSON.stringify(routes)}, target: { prepare: async () => { throw new Error('not prepared'); }${targetExtra} } },
    };\n`,
  );
  if (packageJson !== undefined) writeFileSync(join(dir, 'package.json'), JSON.stringify(packageJson));
  return dir;
}

/**
 * A folder whose plug-in's prepared target names `url`, declares `server` and `network` (each when
 * given) and `audit` as what installAudit resolves to; dispose leaves a mark in the cell.
 */
function targetPluginFolder(
  url: string,
  server: unknown,
  {
    network,
    audit = 'undefined',
    packageJson,
  }: { network?: unknown; audit?: string; packageJson?: unknown } = {},
): string {
  const dir = pluginFolder([PLUGIN_ROUTE], packageJson);
  writeFileSync(
    join(dir, 'plugin.mjs'),
    `import { writeFileSync } from 'node:fs';
export default {
  api: 'dpone.connector/v1',
  meta: { name: 'dpone-connector-example', version: '2.3.4' },
  target: { capability: 'transactional-commit-marker', fenceLocation: () => 'x', open: async () => { throw new Error('not opened'); } },
  harness: {
    routes: ${JSON.stringify([PLUGIN_ROUTE])},
    target: {
      ${network === undefined ? '' : `network: ${JSON.stringify(network)},`}
      prepare: async (cellDir) => ({
        endpoint: { url: ${JSON.stringify(url)}, table: 'events' },
        ${server === undefined ? '' : `server: ${JSON.stringify(server)},`}
        identity: 'example:events',
        installAudit: async () => ${audit},
        read: async () => ({ rows: [{ id: 1n }], inserts: [], markerKind: 'transaction' }),
        [Symbol.asyncDispose]: async () => writeFileSync(cellDir + '/disposed', ''),
      }),
    },
  },
};
`,
  );
  return dir;
}

describe('plug-in routes of a certification run', () => {
  it('lists the routes a --connector module declares, with the module name and version it certifies', async () => {
    const dir = pluginFolder([PLUGIN_ROUTE]);
    const routes = await pluginRoutes(dir, ['./plugin.mjs']);
    expect(Object.keys(routes)).toEqual([ROUTE_ID]);
    const route = await routes[ROUTE_ID]!();
    expect(route).toMatchObject({
      id: ROUTE_ID,
      connectorVersion: 'dpone-connector-example@2.3.4',
    });
  });

  it('reads package.json dpone.connectors, and refuses a list that is not one', async () => {
    const listed = pluginFolder([PLUGIN_ROUTE], {
      dpone: { connectors: ['./plugin.mjs'] },
    });
    expect(await configuredConnectors(listed)).toEqual(['./plugin.mjs']);
    expect(Object.keys(await pluginRoutes(listed))).toEqual([ROUTE_ID]);
    const bad = pluginFolder([], { dpone: { connectors: './plugin.mjs' } });
    await expect(configuredConnectors(bad)).rejects.toMatchObject({ code: ERROR_CODES.INVALID_INPUT });
  });

  it("refuses a plug-in that claims a built-in route's id or a source it cannot pair with", async () => {
    for (const routes of [
      [{ id: EMBEDDED_ENGINE, source: EMBEDDED_ENGINE }],
      // A composed built-in route's id, not only an alias, is refused.
      [{ id: COMPOSED_BUILT_IN, source: EMBEDDED_ENGINE }],
      [{ id: ROUTE_ID, source: 'kafka' }],
    ]) {
      const dir = pluginFolder(routes);
      await expect(pluginRoutes(dir, ['./plugin.mjs'])).rejects.toMatchObject({
        code: ERROR_CODES.INVALID_INPUT,
        fields: { field: '--connector' },
      });
    }
  });

  it('a plug-in route has a default suite (no --scenario): the embedded scenarios, none named for an engine', async () => {
    const dir = pluginFolder([PLUGIN_ROUTE], {
      dpone: { connectors: ['./plugin.mjs'] },
    });
    const files = (await defaultScenarioFiles(ROUTE_ID, dir)).map((f) => f.split('/').pop());
    expect(files).toEqual(expect.arrayContaining(['crash.yaml', 'race.yaml', 'pause.yaml']));
    expect(files.some((name) => SERVER_SCENARIO.test(name ?? ''))).toBe(false);
    // No openPlain: the fenceless scenarios (target.fence: none) are not this route's.
    expect(files).not.toContain('fenceless.yaml');
    expect(files).not.toContain('fenceless-airflow-retry.yaml');
    expect((await (await pluginRoutes(dir))[ROUTE_ID]!()).unsafeVariants).not.toContain('replay-unknown');
  });

  it('a plug-in target with openPlain runs the fenceless scenarios, against the variants unsafe without a fence', async () => {
    const dir = pluginFolder(
      [PLUGIN_ROUTE],
      { dpone: { connectors: ['./plugin.mjs'] } },
      '',
      ", openPlain: async () => { throw new Error('not opened'); }",
    );
    const files = (await defaultScenarioFiles(ROUTE_ID, dir)).map((f) => f.split('/').pop());
    expect(files).toEqual(
      expect.arrayContaining(['fenceless.yaml', 'fenceless-pause.yaml', 'fenceless-airflow-retry.yaml']),
    );
    const route = await (await pluginRoutes(dir))[ROUTE_ID]!();
    expect(route.capabilities.plainWrites).toBe(true);
    expect(route.unsafeVariants).toContain('replay-unknown');
  });

  it('offers timezone-shifted when the plug-in lists it: its cells carry instants with a zone', async () => {
    const dir = pluginFolder(
      [PLUGIN_ROUTE],
      undefined,
      '',
      ", unsafeVariants: ['value-changed', 'timezone-shifted'], openUnsafe: async () => { throw new Error('not opened'); }",
    );
    const route = await (await pluginRoutes(dir, ['./plugin.mjs']))[ROUTE_ID]!();
    // The plug-in cells carry rich texts (value-changed shows) and zoned instants (the `at` column).
    expect(route.unsafeVariants).toContain('value-changed');
    expect(route.unsafeVariants).toContain('timezone-shifted');
  });
});

describe("the plug-in cells' data", () => {
  it('the plug-in cells carry zoned instants: timezone-shifted is exercisable there, and the source holds them', async () => {
    expect(() => refuseUnshowableVariants(ROUTE_ID, ['timezone-shifted'], PLUGIN_SOURCE_DATA)).not.toThrow();
    const dir = mkdtempSync(join(tmpdir(), 'dpone-variant-data-'));
    writeSource(await embeddedHost(), dir, { rows: 12, strategy: 'append', leaseTtlMs: 1000, seed: 7 });
    // The loaded partition (day 2026-01-01), read by the embedded engine's own source reader.
    const at = (await (await embeddedHost()).source.rows(dir, CELL_TABLE).read()).map(
      (row) => row.at as string | null,
    );
    const zones = new Set(at.map((value) => value?.match(/(Z|[+-]\d\d:\d\d)$/)?.[1] ?? null));
    // +05:30, -08:00, -05:00 (DST edges), Z, and NULL: what a zone-shifting connector changes.
    expect(zones).toEqual(new Set(['+05:30', '-08:00', '-05:00', 'Z', null]));
  });
});

describe('a plug-in route restoring recorded kills', () => {
  const ROUTES = [PLUGIN_ROUTE];
  const route = async (targetExtra: string) =>
    (await pluginRoutes(pluginFolder(ROUTES, undefined, targetExtra), ['./plugin.mjs']))[ROUTE_ID]!();

  it('without target.stateFiles every cell seeds from scratch: no copy, no fingerprint', async () => {
    const plain = await route('');
    expect(plain.copyCellState).toBeUndefined();
    expect(plain.durableFingerprint).toBeUndefined();
  });

  it('copies exactly the embedded durable files and the declared state files, dropping stale ones', async () => {
    const copying = await route(", stateFiles: ['target.x', 'target.x.wal']");
    expect(copying.durableFingerprint).toBeUndefined(); // no dumpState: kills are never merged
    const from = mkdtempSync(join(tmpdir(), 'dpone-plugin-from-'));
    const to = mkdtempSync(join(tmpdir(), 'dpone-plugin-to-'));
    for (const name of [
      'source.db',
      'journal.db',
      'journal.db-wal',
      'target.x',
      'workload.yaml',
      'scratch.tmp',
    ])
      writeFileSync(join(from, name), `from ${name}`);
    mkdirSync(join(from, 'state'));
    writeFileSync(join(from, 'state', 'lease'), 'from lease');
    // The prepared cell: its own fresh target, a WAL the snapshot has not, its own workload.
    for (const name of ['target.x', 'target.x.wal', 'workload.yaml'])
      writeFileSync(join(to, name), `to ${name}`);
    expect(await copying.copyCellState!(from, to)).toBe(true);
    expect(readdirSync(to).sort()).toEqual([
      'journal.db',
      'journal.db-wal',
      'source.db',
      'state',
      'target.x',
      'workload.yaml',
    ]);
    expect(readFileSync(join(to, 'target.x'), 'utf8')).toBe('from target.x');
    expect(readFileSync(join(to, 'state', 'lease'), 'utf8')).toBe('from lease');
    expect(readFileSync(join(to, 'workload.yaml'), 'utf8')).toBe('to workload.yaml');
  });

  it('a recorded state holding none of the declared files (a dummy, the target elsewhere) is not restored: false, nothing copied', async () => {
    const dummy = await route(", stateFiles: ['target.conn']");
    const from = mkdtempSync(join(tmpdir(), 'dpone-plugin-from-'));
    const to = mkdtempSync(join(tmpdir(), 'dpone-plugin-to-'));
    // The kill's journal is ahead of the target it was written with, which lives on a server.
    for (const name of ['source.db', 'journal.db', 'workload.yaml'])
      writeFileSync(join(from, name), `from ${name}`);
    for (const name of ['source.db', 'journal.db', 'workload.yaml'])
      writeFileSync(join(to, name), `to ${name}`);
    expect(await dummy.copyCellState!(from, to)).toBe(false);
    for (const name of ['source.db', 'journal.db', 'workload.yaml'])
      expect(readFileSync(join(to, name), 'utf8')).toBe(`to ${name}`);
    // One declared file present: the state is restored (the honest copy above answers true).
    writeFileSync(join(from, 'target.conn'), 'from target.conn');
    expect(await dummy.copyCellState!(from, to)).toBe(true);
    expect(readFileSync(join(to, 'journal.db'), 'utf8')).toBe('from journal.db');
  });

  it("fingerprints with the plug-in's dump: equal dumps are one state, a differing dump is another", async () => {
    const dumping = await route(
      ", stateFiles: ['target.x'], dumpState: async (dir) => (await import('node:fs')).readFileSync(dir + '/target.x', 'utf8')",
    );
    const cell = (target: string) => {
      const dir = mkdtempSync(join(tmpdir(), 'dpone-plugin-fp-'));
      writeFileSync(join(dir, 'target.x'), target);
      return dir;
    };
    const a = await dumping.durableFingerprint!(cell('fence COMMITTED 3'));
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await dumping.durableFingerprint!(cell('fence COMMITTED 3'))).toBe(a);
    expect(await dumping.durableFingerprint!(cell('fence PREPARED 3'))).not.toBe(a);
  });
});

describe('a plug-in route whose target declares its server', () => {
  /** A plug-in whose prepared target names `url` and declares `server`; dispose leaves a mark. */
  async function serverRoute(url: string, server: unknown) {
    return (await pluginRoutes(targetPluginFolder(url, server), ['./plugin.mjs']))[ROUTE_ID]!();
  }
  const OPTIONS = { rows: 4, strategy: 'append', leaseTtlMs: 1000, seed: 7 } as const;
  /** The embedded environment a plug-in cell runs in (no services). */
  const environment = () => startEmbedded(tmpdir());

  it('seals the target by re-pointing the URL at a listener, and the sealed workload names it', async () => {
    const route = await serverRoute('x://u@127.0.0.1:3306/warehouse', { host: '127.0.0.1', port: 3306 });
    const cellDir = mkdtempSync(join(tmpdir(), 'dpone-plugin-server-'));
    await using fixture = await route.prepareCell(cellDir, OPTIONS, await environment());
    // No state files: nothing to watch for use; the probe decides whether the seal is believed.
    expect(fixture.watchStateUse).toBeUndefined();
    const seal = await fixture.sealStorage!(fixture.conflictingWorkloadFile);
    const sealed = readFileSync(seal.workloadFile, 'utf8');
    expect(sealed).not.toContain('127.0.0.1:3306');
    expect(sealed).toMatch(/url: x:\/\/u@127\.0\.0\.1:\d+\/warehouse/);
    expect(seal.sealed).toContain(
      "the target server's host:port re-pointed at a listener the harness watches",
    );
    expect(await seal.release()).toEqual([]);
  });

  it('refuses a declared server the URL does not name (the seal could not re-point it), disposing the target', async () => {
    const route = await serverRoute('x://u@127.0.0.1:3306/warehouse', { host: '127.0.0.1', port: 3307 });
    const cellDir = mkdtempSync(join(tmpdir(), 'dpone-plugin-server-'));
    await expect(route.prepareCell(cellDir, OPTIONS, await environment())).rejects.toMatchObject({
      code: ERROR_CODES.INVALID_INPUT,
      fields: { field: 'harness.target.prepare.server' },
    });
    expect(readdirSync(cellDir)).toContain('disposed');
  });
});

describe('a plug-in route whose target declares network', () => {
  /** A plug-in whose prepared target names `url`, declares `server` and (`network`) asks for a proxy. */
  async function networkRoute(url: string, server: unknown, network: unknown = true, audit = 'undefined') {
    const packageJson = { dpone: { connectors: ['./plugin.mjs'] } };
    const dir = targetPluginFolder(url, server, { network, audit, packageJson });
    return { dir, route: await (await pluginRoutes(dir))[ROUTE_ID]!() };
  }
  const OPTIONS = { rows: 4, strategy: 'append', leaseTtlMs: 1000, seed: 7 } as const;
  const cellDir = () => mkdtempSync(join(tmpdir(), 'dpone-plugin-network-'));

  it('needs a Toxiproxy on its target connection, so network.yaml and lost-ack.yaml join its suite; without it they stay out', async () => {
    const { dir, route } = await networkRoute('x://u@127.0.0.1:3306/w', { host: '127.0.0.1', port: 3306 });
    expect(route.services).toEqual(['toxiproxy']);
    expect(route.defaultProvider).toBe('local');
    expect(route.capabilities.proxies).toEqual(['target']);
    expect(routeRuns(route, { kind: 'lost-ack' })).toBe(true);
    const files = (await defaultScenarioFiles(ROUTE_ID, dir)).map((f) => f.split('/').pop());
    expect(files).toEqual(expect.arrayContaining(['network.yaml', 'lost-ack.yaml', 'crash.yaml']));

    const plain = await networkRoute('x://u@127.0.0.1:3306/w', { host: '127.0.0.1', port: 3306 }, false);
    expect(plain.route.services).toEqual([]);
    expect(plain.route.capabilities.proxies).toEqual([]);
    const plainFiles = (await defaultScenarioFiles(ROUTE_ID, plain.dir)).map((f) => f.split('/').pop());
    expect(plainFiles).not.toContain('network.yaml');
    expect(plainFiles).not.toContain('lost-ack.yaml');
  });

  it('refuses a network declaration that is not true or false', async () => {
    await expect(networkRoute('x://u@127.0.0.1:3306/w', undefined, 'yes')).rejects.toMatchObject({
      code: ERROR_CODES.INVALID_INPUT,
      fields: { field: '--connector' },
    });
  });

  it('refuses a cell outside the local provider, disposing the target', async () => {
    const { route } = await networkRoute('x://u@127.0.0.1:3306/w', { host: '127.0.0.1', port: 3306 });
    const dir = cellDir();
    await expect(route.prepareCell(dir, OPTIONS, await startEmbedded(tmpdir()))).rejects.toMatchObject({
      code: ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      fields: { field: '--provider' },
    });
    expect(readdirSync(dir)).toContain('disposed');
  });

  const missing = missingLocal(ENGINE_SERVICES, ['toxiproxy'], process.env);
  // In CI Toxiproxy is provisioned, so a missing binary is a failure; elsewhere it is UNVERIFIED.
  const unverified = missing.length > 0 && process.env.CI !== 'true';
  if (unverified) console.warn(`UNVERIFIED plug-in network cells: ${missing.join('; ')}`);

  describe.skipIf(unverified)('with a real Toxiproxy (local provider)', () => {
    /** A TCP server standing in for the plug-in's: it answers every byte with `<` + the byte. */
    async function echoServer(): Promise<Server> {
      const server = createServer((socket) => socket.on('data', (data) => socket.write(`<${data}`)));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    }
    /** What `host:port` answers to `ping` (or the error code when it cannot be reached). */
    const ask = (port: number): Promise<string> =>
      new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.setTimeout(3000, () => (socket.destroy(), resolve('timeout')));
        socket.on('connect', () => socket.write('ping'));
        socket.on('data', (data) => (socket.end(), resolve(String(data))));
        socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
        socket.on('close', () => resolve('closed'));
      });

    it("puts a proxy of its own in front of each cell's server: the workloads name it, it forwards, a toxic cuts it; the seal stays on the server's address; dispose removes it", async () => {
      await using echo = {
        server: await echoServer(),
        [Symbol.asyncDispose]: async () => void echo.server.close(),
      };
      const port = (echo.server.address() as AddressInfo).port;
      const { route } = await networkRoute(`x://u@127.0.0.1:${port}/w?t=1`, { host: '127.0.0.1', port });
      const started = await startLocal(ENVIRONMENT_ENGINES, ['toxiproxy']);
      if (started.status !== 'started') throw new Error(started.reason);
      await using environment = started.environment;
      const dir = cellDir();
      let proxyName: string;
      {
        await using fixture = await route.prepareCell(dir, OPTIONS, environment);
        const network = fixture.network!;
        expect(network.apiUrl).toBe(environment.services.toxiproxy!.apiUrl);
        proxyName = network.proxies.target!;
        expect(network.proxies.journal).toBeUndefined();
        const proxy = (await (await fetch(`${network.apiUrl}/proxies/${proxyName}`)).json()) as {
          listen: string;
          upstream: string;
        };
        expect(proxy.upstream).toBe(`127.0.0.1:${port}`);
        const proxyPort = Number(proxy.listen.split(':').pop());
        expect(proxyPort).not.toBe(port);
        // Both workloads name the proxy in place of the server, the rest of the URL unchanged.
        for (const file of [fixture.workloadFile, fixture.conflictingWorkloadFile]) {
          const text = readFileSync(file, 'utf8');
          expect(text).toContain(`"url": "x://u@127.0.0.1:${proxyPort}/w?t=1"`);
          expect(text).not.toContain(`127.0.0.1:${port}/`);
        }
        // The proxy reaches the server; a toxic on it cuts the workers' connection, not the server.
        expect(await ask(proxyPort)).toBe('<ping');
        {
          await using _down = await installToxic(network.apiUrl, proxyName, 'down');
          expect(await ask(proxyPort)).not.toBe('<ping');
          expect(await ask(port)).toBe('<ping');
        }
        expect(await ask(proxyPort)).toBe('<ping');
        // The seal re-points the server's own address (not the proxy's) at its listener.
        const seal = await fixture.sealStorage!(fixture.conflictingWorkloadFile);
        const sealed = readFileSync(seal.workloadFile, 'utf8');
        expect(sealed).not.toContain(`127.0.0.1:${port}/`);
        expect(sealed).not.toContain(`127.0.0.1:${proxyPort}/`);
        expect(await seal.release()).toEqual([]);
      }
      expect(readdirSync(dir)).toContain('disposed');
      expect((await fetch(`${environment.services.toxiproxy!.apiUrl}/proxies/${proxyName}`)).status).toBe(
        404,
      );
    });

    it('a cell whose set-up fails after its proxy was made deletes the proxy and disposes the target', async () => {
      const { route } = await networkRoute(
        'x://u@127.0.0.1:3306/w',
        { host: '127.0.0.1', port: 3306 },
        true,
        "{ throw new Error('no audit'); }",
      );
      const started = await startLocal(ENVIRONMENT_ENGINES, ['toxiproxy']);
      if (started.status !== 'started') throw new Error(started.reason);
      await using environment = started.environment;
      const dir = cellDir();
      await expect(route.prepareCell(dir, OPTIONS, environment)).rejects.toThrow('no audit');
      expect(readdirSync(dir)).toContain('disposed');
      const proxies = await (await fetch(`${environment.services.toxiproxy!.apiUrl}/proxies`)).json();
      expect(proxies).toEqual({});
    });

    it('refuses a network declaration whose prepared target names no server, disposing the target', async () => {
      const { route } = await networkRoute('x://u@127.0.0.1:3306/w', undefined);
      const started = await startLocal(ENVIRONMENT_ENGINES, ['toxiproxy']);
      if (started.status !== 'started') throw new Error(started.reason);
      await using environment = started.environment;
      const dir = cellDir();
      await expect(route.prepareCell(dir, OPTIONS, environment)).rejects.toMatchObject({
        code: ERROR_CODES.INVALID_INPUT,
        fields: { field: 'harness.target.prepare.server' },
      });
      expect(readdirSync(dir)).toContain('disposed');
    });
  });
});
