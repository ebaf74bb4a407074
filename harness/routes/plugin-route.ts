import { builtInRouteCode, pluginCode } from '../../src/cli/route-code.ts';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { workloadText } from './workload-text.ts';
import type { LoadedPlugin } from '../../src/cli/connector-plugins.ts';
import { pluginConnectorVersion } from '../../src/ports/connector-plugin.ts';
import { DponeError, ERROR_CODES, invalidInput } from '../../src/contracts/errors.ts';
import { UNSAFE_VARIANTS, unsafeVariantsFor } from '../../src/cli/unsafe-catalogue.ts';
import { routeIdOf } from '../../src/contracts/route-id.ts';
import type { TargetSnapshot } from '../evidence/evidence-types.ts';
import type { SnapshotOptions, TargetInspector } from '../inspectors/target-inspector.ts';
import { keyDigest, rowDigest, setDigest, snapshotFromReading } from '../checkers/target-snapshot.ts';
import { firstDifference } from '../checkers/first-difference.ts';
import type {
  CellFixture,
  CellNetwork,
  CellWorkloadOptions,
  FenceOperations,
  FenceLossMode,
  Route,
} from './route.ts';
import { copyDeclaredState } from './cell-state-copy.ts';
import type { EmbeddedHost } from './parts.ts';
import { sealParts } from './part-seal.ts';
import { sealStateFiles } from './state-files-seal.ts';
import { checkServerAddress, sealServerTarget, serverAuthority } from './server-seal.ts';
import type { StartedEnvironment } from '../env/environment.ts';
import { deleteProxy } from '../env/toxiproxy-service.ts';
import type { ProxyEndpoint, ToxiproxyService } from '../env/toxiproxy-service.ts';
import type { PartSeal } from './parts.ts';
import { TARGET_COMMIT_KILLS } from './server-control.ts';
import { verifiedServerControl } from './server-kill-control.ts';
import { watchStateFilesUse } from './state-files-use.ts';
import { refuseUnshowableVariants } from './variant-data.ts';
import { stateFingerprint } from './state-fingerprint.ts';
import { CELL_TABLE, COLUMNS, PLUGIN_SOURCE_DATA, workloadDocument, writeSource } from './plugin-source.ts';
import type { PluginHarness, PluginRouteDeclaration, PreparedTarget } from './target-part.ts';

/** The runtime's checkpoints and evidence (execution.state_dir of the generated workload). */
const STATE_FOLDER = 'state';

/** The harness inspector of a plug-in cell: the plug-in's own read of its target, the source read here. */
function inspectorOf(host: EmbeddedHost, cellDir: string, current: () => PreparedTarget): TargetInspector {
  const source = host.source.rows(cellDir, CELL_TABLE);
  const digests = (row: Readonly<Record<string, string | number | bigint | null>>) => ({
    key: keyDigest(row, CELL_TABLE.naturalKey),
    row: rowDigest(row, COLUMNS),
  });
  return {
    get identity() {
      return current().identity;
    },
    installAudit: () => current().installAudit(),
    async snapshot(options: SnapshotOptions = {}): Promise<TargetSnapshot> {
      const read = await current().read();
      const expected = await source.read();
      return snapshotFromReading({
        target: read.rows.map(digests),
        source: expected.map(digests),
        ...(options.firstDifference === false
          ? {}
          : {
              firstDifference: () => firstDifference(read.rows, expected, CELL_TABLE.naturalKey, COLUMNS),
            }),
        inserts: read.inserts.map((insert) => ({
          key: keyDigest(insert.key, CELL_TABLE.naturalKey),
          marker: insert.marker,
        })),
        markerKind: read.markerKind,
      });
    },
    async targetDigest() {
      const { rows } = await current().read();
      return { digest: setDigest(rows.map((row) => rowDigest(row, COLUMNS))), rows: rows.length };
    },
    close: async () => undefined,
    [Symbol.asyncDispose]: async () => undefined,
  };
}

/** The fence operations of the cell's current target (the fence a re-prepared target has is its own). */
function fenceOperations(current: () => PreparedTarget): FenceOperations | undefined {
  const fence = current().fence;
  if (!fence) return undefined;
  return {
    ...(fence.drop ? { drop: () => current().fence!.drop!() } : {}),
    ...(fence.rename ? { rename: () => current().fence!.rename!() } : {}),
    read: (operationId) => current().fence!.read(operationId),
  };
}

/** Seals a plug-in target: its declared state files, its declared server, or both. */
async function sealTarget(
  cellDir: string,
  target: PreparedTarget,
  stateFiles: ReadonlySet<string> | undefined,
): Promise<PartSeal> {
  const files = stateFiles ? await sealStateFiles(cellDir, [...stateFiles], target.endpoint.url) : null;
  if (!target.server) return files!;
  let server: PartSeal;
  try {
    server = await sealServerTarget(target.endpoint.url, target.server, () => target.read());
  } catch (error) {
    await files?.release();
    throw error;
  }
  if (!files) return server;
  return {
    url: server.url,
    sealed: `${files.sealed}; ${server.sealed}`,
    release: async () => [...(await files.release()), ...(await server.release())],
  };
}

/**
 * The Toxiproxy of a cell of a route whose plug-in declares `network`: the local provider's (it
 * runs on this host, so it reaches the plug-in's server at the address `read()` does), or why not.
 */
function cellToxiproxy(route: string, environment: StartedEnvironment): ToxiproxyService {
  const toxiproxy = environment.services.toxiproxy;
  if (!toxiproxy || environment.provider !== 'local')
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      `route ${route}: its plug-in declares network, so its cells need the Toxiproxy of --provider local (it reaches the plug-in's server from this host); provider ${environment.provider} has ${toxiproxy ? 'one elsewhere' : 'none'}`,
      { field: '--provider' },
    );
  return toxiproxy;
}

/** A proxy name of its own per cell (cells of several runs may share one Toxiproxy). */
const proxyName = (cellDir: string): string =>
  `plugin_${createHash('sha256').update(`${cellDir}\u0000${Date.now()}\u0000${Math.random()}`).digest('hex').slice(0, 16)}-target`;

/**
 * A plug-in route as a composition: the embedded engine's seeded source file and cell journal
 * (`host`, parts.ts EmbeddedHost), and the plug-in's target part. The generated workload names the
 * plug-in module by its resolved location, so every worker (`dpone run`) loads the very module the
 * run certifies.
 */
export function pluginRoute(
  loaded: LoadedPlugin,
  declaration: PluginRouteDeclaration,
  host: EmbeddedHost,
): Route {
  const { plugin } = loaded;
  const harness = plugin.harness as PluginHarness;
  const capability = plugin.target!.capability;
  const offered = new Set(unsafeVariantsFor(capability));
  // A variant unsafe only on some engines (real-as-integer) is offered when the plug-in
  // lists it itself: it implements the flaw, so it says the flaw is unsafe on its engine.
  for (const name of plugin.target!.unsafeVariants ?? []) {
    const variant = Object.hasOwn(UNSAFE_VARIANTS, name) ? UNSAFE_VARIANTS[name] : undefined;
    if (variant?.engines && variant.unsafeOn.includes(capability)) offered.add(name);
  }
  // Plain writes (openPlain): fenceless cells run too, against the variants unsafe without a fence.
  const plainWrites = typeof plugin.target!.openPlain === 'function';
  // A flaw only values the plug-in cells do not carry would show could only survive: refused, said.
  refuseUnshowableVariants(
    declaration.id,
    (plugin.target!.unsafeVariants ?? []).filter((name) => offered.has(name)),
    PLUGIN_SOURCE_DATA,
  );
  const variants = [
    ...(plugin.target!.unsafeVariants ?? []).filter((name) => offered.has(name)),
    ...(plainWrites ? unsafeVariantsFor('none') : []),
  ];
  const fenceModes: FenceLossMode[] = [...(harness.fenceLossModes ?? [])];
  const stateFiles = harness.target.stateFiles ? new Set(harness.target.stateFiles) : undefined;
  const dumpState = harness.target.dumpState?.bind(harness.target);
  // A plug-in that declares `network` has its server put behind a Toxiproxy proxy per cell (the
  // journal is the embedded engine's file: only the target's connection can be poisoned).
  const network = harness.target.network === true;
  // A plug-in that declares `serverKills` starts a server of its own per cell on request, and kills it.
  const serverKills = harness.target.serverKills === true;
  return {
    id: declaration.id,
    defaultProvider: network ? 'local' : 'embedded',
    services: network ? ['toxiproxy'] : [],
    journal: host.journal.kind,
    // No late rows (the plug-in's table is fixed); a proxy and a server to kill when declared.
    capabilities: {
      proxies: network ? ['target'] : [],
      serverKills: { target: serverKills ? TARGET_COMMIT_KILLS : [], journal: [] },
      networkPhases: {},
      lateRows: false,
      plainWrites,
      ...(serverKills ? { ownServers: true } : {}),
    },
    connectorVersion: pluginConnectorVersion(plugin),
    // The plug-in's target and the embedded engine's source it reads from (plug-in routes are <embedded>-to-*).
    code: () => [
      ...(builtInRouteCode(routeIdOf(host.engine, host.engine))?.slice(0, 1) ?? []),
      pluginCode('target', plugin.meta.name, loaded.url),
    ],
    unsafeVariants: [...new Set(variants)].sort(),
    lossModes: { journal: [...host.journal.lossModes], fence: fenceModes },
    ...(stateFiles
      ? {
          copyCellState: (fromDir: string, toDir: string) =>
            copyDeclaredState(
              fromDir,
              toDir,
              stateFiles,
              (name) => host.isDurable(name) || name === STATE_FOLDER,
            ),
        }
      : {}),
    ...(stateFiles && dumpState
      ? {
          durableFingerprint: async (dir: string) =>
            stateFingerprint(
              dir,
              host.files.map((name) => ({ name, dump: host.dumpFile })),
              STATE_FOLDER,
              [`target\n${await dumpState(dir, CELL_TABLE)}`],
            ),
        }
      : {}),
    async prepareCell(
      cellDir: string,
      options: CellWorkloadOptions,
      environment: StartedEnvironment,
    ): Promise<CellFixture> {
      if (options.fence === 'none' && !plainWrites)
        throw invalidInput(
          `route ${declaration.id}: its connector cannot write the target without a fence (no target.openPlain)`,
          { field: 'workload.fence' },
        );
      writeSource(host, cellDir, options);
      // The cell's target and its proxy: swapped by isolateServers() for a target on a server of
      // its own, so the inspector, the fence operations, the seal and the env follow the new one.
      let target: PreparedTarget = await harness.target.prepare(cellDir, CELL_TABLE);
      let proxy: { endpoint: ProxyEndpoint; toxiproxy: ToxiproxyService } | undefined;
      const releaseTarget = async () => {
        const [p, t] = [proxy, target];
        proxy = undefined;
        if (p) await deleteProxy(p.toxiproxy, p.endpoint.name);
        await t[Symbol.asyncDispose]();
      };
      const workloadFile = join(cellDir, 'workload.yaml');
      const conflictingWorkloadFile = join(cellDir, 'workload-conflicting.yaml');
      /** Checks the prepared target, puts its proxy in front of it, writes the workloads naming it. */
      const setUp = async (): Promise<void> => {
        const secret = target.endpoint.password_env;
        if (secret !== undefined && target.env?.[secret] === undefined)
          throw invalidInput(
            `route ${declaration.id}: its prepared target names password_env ${secret}, which its env does not set`,
            { field: 'harness.target.prepare' },
          );
        const server = target.server;
        if (server !== undefined) checkServerAddress(declaration.id, target.endpoint.url, server);
        if (network) {
          if (server === undefined)
            throw invalidInput(
              `route ${declaration.id}: its plug-in declares network, but its prepared target declares no server (host:port) to put a proxy in front of`,
              { field: 'harness.target.prepare.server' },
            );
          const toxiproxy = cellToxiproxy(declaration.id, environment);
          proxy = {
            endpoint: await toxiproxy.createProxy(proxyName(cellDir), serverAuthority(server)),
            toxiproxy,
          };
        }
        // The workers reach the server through the cell's proxy; the harness's reads stay direct.
        const workerUrl =
          proxy && server
            ? target.endpoint.url.replace(
                serverAuthority(server),
                serverAuthority({ host: proxy.endpoint.host, port: proxy.endpoint.port }),
              )
            : target.endpoint.url;
        const document = (schema: string) =>
          workloadText(
            workloadDocument(options, schema, {
              route: declaration.id,
              canonicalTargetIdentity: target.identity,
              source: host.source.url,
              target: {
                connector: loaded.url,
                ...target.endpoint,
                url: workerUrl,
                ...(options.fence ? { fence: options.fence } : {}),
              },
            }),
          );
        await writeFile(workloadFile, document('schema-v1'));
        await writeFile(conflictingWorkloadFile, document('schema-v2'));
        await target.installAudit();
      };
      // Once prepared, the target (and the cell's proxy) is released on every way out but the fixture.
      try {
        await setUp();
        const inspector = inspectorOf(host, cellDir, () => target);
        const journalUrl = host.journal.url(cellDir);
        const fenceOps = fenceOperations(() => target);
        const server = target.server;
        const fixture: CellFixture = {
          workloadFile,
          conflictingWorkloadFile,
          journalUrl,
          // The plug-in's secrets reach every process of the cell (workers, settle runs, Airflow tries).
          get env() {
            return { ...target.env };
          },
          inspector,
          openJournal: () => host.journal.open(cellDir, journalUrl),
          journalOps: host.journal.ops(cellDir),
          ...(fenceOps ? { fenceOps } : {}),
          get network(): CellNetwork | undefined {
            return proxy
              ? { apiUrl: proxy.toxiproxy.apiUrl, proxies: { target: proxy.endpoint.name } }
              : undefined;
          },
          // The target's declared files hold it whole (the fence too), or its declared server does:
          // sealing them seals the target. Either seal is believed only once probed (seal-probe.ts).
          ...(stateFiles || server
            ? {
                sealStorage: (workload: string) =>
                  sealParts(cellDir, workload, {
                    source: { seal: () => host.source.seal(cellDir) },
                    target: { seal: () => sealTarget(cellDir, target, stateFiles) },
                  }),
              }
            : {}),
          ...(stateFiles ? { watchStateUse: () => watchStateFilesUse(cellDir, [...stateFiles]) } : {}),
          // A plug-in that declares serverKills: the cell's target moves onto a server of its own
          // (no worker ran yet), whose kill and start the harness checks at the declared host:port.
          ...(serverKills
            ? {
                isolateServers: async () => {
                  await releaseTarget();
                  target = await harness.target.prepare(cellDir, CELL_TABLE, { dedicated: true });
                  await setUp();
                  const { control, server: own } = target;
                  if (!control || !own)
                    throw invalidInput(
                      `route ${declaration.id}: its plug-in declares serverKills, but its target prepared with { dedicated: true } declares no ${control ? 'server (host:port)' : 'control (kill, start)'}`,
                      { field: `harness.target.prepare.${control ? 'server' : 'control'}` },
                    );
                  return { target: verifiedServerControl(declaration.id, own, control) };
                },
              }
            : {}),
          [Symbol.asyncDispose]: releaseTarget,
        };
        return fixture;
      } catch (error) {
        await releaseTarget();
        throw error;
      }
    },
  };
}
