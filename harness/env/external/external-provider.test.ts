import { describe, expect, it } from 'vitest';
import { startExternal } from './external-provider.ts';
import { ENGINE_SERVICES } from '../../routes/engine-services.ts';

// Engine-neutral on purpose: each engine's variables are asserted in its folder
// (connectors/<engine>/harness/env/service.test.ts).
describe('external provider', () => {
  const engines = Object.keys(ENGINE_SERVICES);

  it('is UNVERIFIED with the variables to set when none are given: each engine’s, then Toxiproxy’s', async () => {
    expect(engines.length).toBeGreaterThan(0);
    for (const engine of engines)
      expect(await startExternal(ENGINE_SERVICES, [engine, 'toxiproxy'], {})).toEqual({
        status: 'unverified',
        reason: `external provider: set ${ENGINE_SERVICES[engine]!.external.requiredEnv.join(', ')}, DPONE_TOXIPROXY_URL`,
      });
  });

  it('asks only for the variables of the services the route needs', async () => {
    for (const engine of engines) {
      const result = await startExternal(ENGINE_SERVICES, [engine], {});
      const others = engines.filter((other) => other !== engine);
      for (const name of others.flatMap((other) => ENGINE_SERVICES[other]!.external.requiredEnv))
        expect(JSON.stringify(result)).not.toContain(name);
      expect(JSON.stringify(result)).not.toContain('TOXIPROXY');
    }
  });
});
