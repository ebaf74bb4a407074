import { disposeAll, ownedEnvironment } from '../dispose-all.ts';
import type { EnvironmentProvider, EnvironmentResult } from '../environment.ts';
import type { EngineServices, EnvironmentEngines, EnvironmentServices, ServiceName } from '../services.ts';
import { engineServicesAsked, TOXIPROXY } from '../services.ts';
import type { ToxiproxyService } from '../toxiproxy-service.ts';
import { findToxiproxyServer, TOXIPROXY_MISSING } from './local-binaries.ts';
import { localToxiproxyService } from './local-toxiproxy-service.ts';
import { LocalToxiproxyServer } from './toxiproxy-server.ts';

/**
 * Which of the asked services this machine lacks, one line each (checked before starting
 * anything): each engine's own check (its service entry), then Toxiproxy.
 */
export function missingLocal(
  engines: EngineServices,
  services: readonly ServiceName[],
  env: NodeJS.ProcessEnv,
): string[] {
  const missing = engineServicesAsked(engines, services)
    .map((name) => engines[name]!.local.missing(env))
    .filter((line): line is string => line !== null);
  if (services.includes(TOXIPROXY) && findToxiproxyServer(env) === null) missing.push(TOXIPROXY_MISSING);
  return missing;
}

/**
 * The `local` provider: starts, from the binaries on this machine, exactly the services the route
 * needs — each engine's server as its service entry says (a throw-away cluster or server), a
 * Toxiproxy server — on free 127.0.0.1 ports, and stops them on dispose. A missing binary (or an
 * engine that cannot run here) gives `unverified` with one line per missing part before anything
 * starts.
 */
export async function startLocal(
  engines: EnvironmentEngines,
  services: readonly ServiceName[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<EnvironmentResult> {
  const missing = missingLocal(engines.services, services, env);
  if (missing.length > 0) return { status: 'unverified', reason: `local provider: ${missing.join('; ')}` };
  const toxiproxyServer = findToxiproxyServer(env);
  const owned: AsyncDisposable[] = [];
  const started: { -readonly [K in keyof EnvironmentServices]: EnvironmentServices[K] } = {};
  const databases: Record<string, string> = {
    [engines.embedded.name]: await engines.embedded.entry.version(),
  };
  let toxiVersion: string | null = null;
  try {
    if (services.includes(TOXIPROXY)) {
      const toxi = await LocalToxiproxyServer.start(toxiproxyServer!);
      owned.push(toxi);
      const service: ToxiproxyService = localToxiproxyService(toxi);
      started.toxiproxy = service;
      toxiVersion = await toxi.version();
    }
    for (const name of engineServicesAsked(engines.services, services)) {
      const { service, version } = await engines.services[name]!.local.start(env, owned);
      started[name] = service;
      databases[name] = version;
    }
  } catch {
    await disposeAll(owned);
    return {
      status: 'unverified',
      reason: `local provider: a server did not start (${services.join(', ')})`,
    };
  }
  return ownedEnvironment({ provider: 'local', databases, toxiproxy: toxiVersion, services: started }, owned);
}

/** The `local` provider as the harness registry sees it. */
export const provider: EnvironmentProvider = {
  name: 'local',
  start: ({ env, services, engines }) => startLocal(engines, services, env),
};
