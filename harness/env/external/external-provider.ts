import { disposeAll, ownedEnvironment } from '../dispose-all.ts';
import type { EnvironmentProvider, EnvironmentResult } from '../environment.ts';
import type { EngineServices, EnvironmentServices, ServiceName } from '../services.ts';
import { engineServicesAsked, TOXIPROXY } from '../services.ts';
import { EXTERNAL_ENV } from './external-env.ts';
import { externalToxiproxy } from './external-toxiproxy.ts';

export { EXTERNAL_ENV } from './external-env.ts';
export { DEFAULT_LISTEN_HOST, listenAddresses } from './external-toxiproxy.ts';

/**
 * The `external` provider: a user's own servers given by environment variables (one URL and
 * password per service the route needs, DPONE_TOXIPROXY_URL for the proxies). It checks each
 * login before creating anything, creates only throw-away databases and proxies, and removes
 * them on dispose (also after Ctrl-C). It owns no server, so cells that must kill or restart one
 * are UNVERIFIED with that reason. A password inside a URL is refused (it would end up in logs or
 * shell history): it comes from the service's password variable.
 */
export async function startExternal(
  engines: EngineServices,
  services: readonly ServiceName[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<EnvironmentResult> {
  const required = (service: ServiceName): readonly string[] =>
    service === TOXIPROXY ? [EXTERNAL_ENV.toxiproxyUrl] : (engines[service]?.external.requiredEnv ?? []);
  const unset = services.flatMap((service) => required(service).filter((name) => !env[name]));
  if (unset.length > 0)
    return { status: 'unverified', reason: `external provider: set ${[...new Set(unset)].join(', ')}` };
  const owned: AsyncDisposable[] = [];
  const started: { -readonly [K in keyof EnvironmentServices]: EnvironmentServices[K] } = {};
  const databases: Record<string, string> = {};
  let toxiVersion: string | null = null;
  const fail = async (reason: string): Promise<EnvironmentResult> => {
    await disposeAll(owned);
    return { status: 'unverified', reason: `external provider: ${reason}` };
  };
  if (services.includes(TOXIPROXY)) {
    const toxi = await externalToxiproxy(env);
    if (typeof toxi === 'string') return fail(toxi);
    owned.push(toxi);
    started.toxiproxy = toxi.service;
    toxiVersion = toxi.version;
  }
  for (const name of engineServicesAsked(engines, services)) {
    const service = await engines[name]!.external.start(env);
    if (typeof service === 'string') return fail(service);
    if (typeof service === 'object' && service !== null && Symbol.asyncDispose in service)
      owned.push(service as AsyncDisposable);
    started[name] = service;
    databases[name] = 'external';
  }
  return ownedEnvironment(
    { provider: 'external', databases, toxiproxy: toxiVersion, services: started },
    owned,
  );
}

/** The `external` provider as the harness registry sees it. */
export const provider: EnvironmentProvider = {
  name: 'external',
  start: ({ env, services, engines }) => startExternal(engines.services, services, env),
};
