import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOXIPROXY_IMAGE } from './docker/docker-provider.ts';
import { ENGINE_SERVICES, ENGINE_SERVICE_NAMES, SERVICE_LABELS, SERVICE_NAMES } from './services.ts';

// Engine-neutral on purpose (no engine is named outside its folder): the values of each entry are
// asserted where the providers use them (external-provider.test.ts, embedded-provider.test.ts).
describe('the services registry', () => {
  it('lists every engine service once, in its start order, then Toxiproxy', () => {
    expect(ENGINE_SERVICE_NAMES.length).toBeGreaterThan(0);
    expect(new Set(SERVICE_NAMES).size).toBe(SERVICE_NAMES.length);
    expect(SERVICE_NAMES).toEqual([...ENGINE_SERVICE_NAMES, 'toxiproxy']);
  });

  it("labels each service from its engine's entry", () => {
    for (const name of ENGINE_SERVICE_NAMES) expect(SERVICE_LABELS[name]).toBe(ENGINE_SERVICES[name].label);
    expect(Object.keys(SERVICE_LABELS)).toEqual([...SERVICE_NAMES]);
  });

  it('asks the external provider for a URL variable and a password variable per engine, none shared', () => {
    const all = ENGINE_SERVICE_NAMES.flatMap((name) => {
      const required = ENGINE_SERVICES[name].external.requiredEnv;
      expect(required).toEqual([
        expect.stringMatching(/^DPONE_\w+_URL$/),
        expect.stringMatching(/^DPONE_\w+_PASSWORD$/),
      ]);
      return required;
    });
    expect(new Set(all).size).toBe(all.length);
  });

  it('runs in the docker provider the images docker/compose.yaml runs', () => {
    const compose = readFileSync(new URL('../../docker/compose.yaml', import.meta.url), 'utf8');
    const images = [...compose.matchAll(/^\s+image: (\S+)$/gm)].map((match) => match[1]);
    const docker = ENGINE_SERVICE_NAMES.map((name) => ENGINE_SERVICES[name].docker.image);
    expect([...docker, TOXIPROXY_IMAGE].sort()).toEqual([...images].sort());
  });
});
