import { fileURLToPath } from 'node:url';
import { resolveRouteId } from './route-names.ts';
import type { ConnectorCode } from '../contracts/certification.ts';
import { builtInConnectorDigest, pluginConnectorDigest } from './code-digest.ts';
import { BUILT_IN_CONNECTORS } from './engine-table.ts';

/**
 * Where each built-in engine's connector code lives (ConnectorPlugin.folder, `connectors/<engine>/`):
 * the folder whose production files (and what they import) are that connector's code — its
 * runtime files, engine.ts and journal/ included (a changed journal changes the engine's digest),
 * NOT its harness/ subfolder (builtInConnectorDigest leaves it out): a certification binds the code
 * `dpone run` executes, and changing how the harness inspects an engine must not make the runtime
 * distrust a certification of unchanged connector code (route-code.test.ts checks every engine has
 * a folder that holds code).
 */
export const ENGINE_FOLDERS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(BUILT_IN_CONNECTORS).map(([name, engine]) => [name, engine.folder]),
);

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
