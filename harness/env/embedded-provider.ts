import type { EnvironmentProvider, StartedEnvironment } from './environment.ts';
import { serviceLabel } from './services.ts';

/** The embedded environment: the engine inside Node, nothing to start, nothing to stop. */
export const provider: EnvironmentProvider = {
  name: 'embedded',
  async start({ services, engines }) {
    if (services.length > 0)
      return {
        status: 'unverified',
        reason: `embedded provider starts no server, and the route needs ${services.map((s) => serviceLabel(engines.services, s)).join(', ')}: use --provider local, docker or external`,
      };
    const environment: StartedEnvironment = {
      provider: 'embedded',
      databases: { [engines.embedded.name]: await engines.embedded.entry.version() },
      toxiproxy: null,
      services: {},
      async [Symbol.asyncDispose]() {},
    };
    return { status: 'started', environment };
  },
};
