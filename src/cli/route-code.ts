import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Workload } from '../contracts/workload.ts';
import { resolveRouteId, urlEngine } from '../contracts/route-id.ts';
import type { ConnectorCode } from '../contracts/certification.ts';
import { builtInConnectorDigest, pluginConnectorDigest } from './code-digest.ts';
import { loadConnectorPlugin } from './connector-plugins.ts';

/**
 * Where each built-in engine's connector code lives: the folder whose production files (and what
 * they import) are that connector's code. A connector that moves changes only its line here
 * (route-code.test.ts checks every engine has one and that it holds code).
 */
export const ENGINE_FOLDERS: Readonly<Record<string, string>> = {
  // SQLite and PostgreSQL (connectors/<engine>/) as MSSQL below: their runtime files and journal/
  // (shadow journals included; SQLite's sqlite-file.ts too), not harness/.
  sqlite: fileURLToPath(new URL('../../connectors/sqlite/', import.meta.url)),
  postgres: fileURLToPath(new URL('../../connectors/postgres/', import.meta.url)),
  // One folder per engine (connectors/clickhouse/): the digest covers its runtime files (engine.ts
  // included) and what they import, NOT its harness/ subfolder (builtInConnectorDigest leaves it
  // out): a certification binds the code `dpone run` executes, and changing how the harness
  // inspects ClickHouse must not make the runtime distrust a certification of unchanged connector code.
  clickhouse: fileURLToPath(new URL('../../connectors/clickhouse/', import.meta.url)),
  // MSSQL (connectors/mssql/) the same way; its journal/ subfolder IS in the digest: it is runtime
  // code of the engine that `dpone run` executes (engine.ts opens it), and engine.ts's import would
  // pull it in anyway, so a changed MSSQL journal changes the MSSQL digest (before the move, the
  // journal was bound by the runtime digest only; it still is, too).
  mssql: fileURLToPath(new URL('../../connectors/mssql/', import.meta.url)),
};

const digests = new Map<string, string>();

/** One built-in engine's connector digest (computed once per process). */
export function engineDigest(engine: string): string | null {
  if (!Object.hasOwn(ENGINE_FOLDERS, engine)) return null;
  let digest = digests.get(engine);
  if (digest === undefined) {
    digest = builtInConnectorDigest(ENGINE_FOLDERS[engine]!).digest;
    digests.set(engine, digest);
  }
  return digest;
}

/** The code of a built-in route (an id or alias): its source and target connectors; null when unknown. */
export function builtInRouteCode(route: string, sourceUrl?: string): ConnectorCode[] | null {
  const parts = resolveRouteId(route, sourceUrl);
  if (parts === null) return null;
  const source = engineDigest(parts.source);
  const target = engineDigest(parts.target);
  if (source === null || target === null) return null;
  return [
    { role: 'source', name: parts.source, digest: source },
    { role: 'target', name: parts.target, digest: target },
  ];
}

/** A plug-in module's connector code, by its resolved module URL. */
export function pluginCode(role: 'source' | 'target', name: string, url: string): ConnectorCode {
  return { role, name, digest: pluginConnectorDigest(fileURLToPath(url)).digest };
}

/**
 * The code of the connectors a workload runs: the plug-ins it names (their module files and what
 * they import), else the built-in engines of its route. Null when this build has no such route.
 */
export async function workloadConnectorCode(workload: Workload): Promise<ConnectorCode[] | null> {
  const base = dirname(workload.file);
  const plugin = async (side: 'source' | 'target'): Promise<ConnectorCode | null> => {
    const specifier = workload[side].connector;
    if (specifier === undefined) return null;
    const loaded = await loadConnectorPlugin(specifier, base, `${side}.connector`);
    return pluginCode(side, loaded.plugin.meta.name, loaded.url);
  };
  const source = await plugin('source');
  const target = await plugin('target');
  if (source === null && target === null) return builtInRouteCode(workload.route, workload.source.url);
  if (target === null) return null;
  if (source !== null) return [source, target];
  // A plug-in target reads from the built-in source its URL's scheme picks.
  const engine = urlEngine(workload.source.url);
  const digest = engine === null ? null : engineDigest(engine);
  return engine !== null && digest !== null ? [{ role: 'source', name: engine, digest }, target] : [target];
}
