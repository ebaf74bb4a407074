import type { EnvironmentProvider } from './environment.ts';

/**
 * The environment registry, keyed by provider name, apart from the EnvironmentProvider interface
 * (environment.ts) so that the interface never imports its implementations; each entry loads its
 * module only when asked.
 */
export const ENVIRONMENT_PROVIDERS: Readonly<Record<string, () => Promise<EnvironmentProvider>>> = {
  embedded: async () => (await import('./embedded-provider.ts')).provider,
  local: async () => (await import('./local/local-provider.ts')).provider,
  docker: async () => (await import('./docker/docker-provider.ts')).provider,
  external: async () => (await import('./external/external-provider.ts')).provider,
};

export function providerNames(): readonly string[] {
  return Object.keys(ENVIRONMENT_PROVIDERS).sort();
}
