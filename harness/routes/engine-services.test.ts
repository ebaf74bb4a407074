import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOXIPROXY_IMAGE } from '../env/docker/docker-provider.ts';
import { serviceLabel, TOXIPROXY } from '../env/services.ts';
import {
  ENGINE_COMPONENTS,
  ENGINE_SERVICES,
  ENVIRONMENT_ENGINES,
  INSTALL,
  missingComponent,
} from './engine-services.ts';
import { CONNECTOR_PARTS, SERVICE_ORDER } from './route-registry.ts';

// Engine-neutral on purpose (no engine is named outside its folder): the values of each entry are
// asserted where the providers use them (external-provider.test.ts, embedded-provider.test.ts) and
// in each engine's folder (connectors/<engine>/harness/env/service.test.ts).
describe('the engines the environment gets from the harness registry', () => {
  it('lists every engine service once, in the registry order, then Toxiproxy', () => {
    const names = Object.keys(ENGINE_SERVICES);
    expect(names.length).toBeGreaterThan(0);
    expect(names).toEqual(Object.keys(CONNECTOR_PARTS).filter((engine) => CONNECTOR_PARTS[engine]!.service));
    expect(SERVICE_ORDER).toEqual([...names, TOXIPROXY]);
  });

  it('has exactly one engine inside Node, which is not a server', () => {
    const { name } = ENVIRONMENT_ENGINES.embedded;
    expect(CONNECTOR_PARTS[name]!.embedded).toBe(ENVIRONMENT_ENGINES.embedded.entry);
    expect(ENGINE_SERVICES[name]).toBeUndefined();
  });

  it("labels each service from its engine's entry", () => {
    for (const [name, entry] of Object.entries(ENGINE_SERVICES))
      expect(serviceLabel(ENGINE_SERVICES, name)).toBe(entry.label);
    expect(serviceLabel(ENGINE_SERVICES, TOXIPROXY)).toBe('Toxiproxy');
  });

  it('asks the external provider for a URL variable and a password variable per engine, none shared', () => {
    const all = Object.values(ENGINE_SERVICES).flatMap((entry) => {
      const required = entry.external.requiredEnv;
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
    const docker = Object.values(ENGINE_SERVICES).map((entry) => entry.docker.image);
    expect([...docker, TOXIPROXY_IMAGE].sort()).toEqual([...images].sort());
  });
});

describe('install hints', () => {
  it("has a hint for every component an engine's matchers name, taken from its entry", () => {
    for (const { install } of ENGINE_COMPONENTS) {
      for (const [component, hint] of Object.entries(install.hints)) expect(INSTALL[component]).toBe(hint);
      for (const [, component] of install.matchers) expect(Object.keys(install.hints)).toContain(component);
    }
  });

  it('tries the matchers most specific first: a reason naming Docker is about Docker, whatever else it names', () => {
    const words = Object.values(ENGINE_SERVICES)
      .map((entry) => entry.label)
      .join(', ');
    expect(missingComponent(`use --provider docker for ${words}`)).toBe('docker');
    expect(missingComponent('external provider: set DPONE_X_URL')).toBe('external');
    expect(missingComponent('Toxiproxy server not found')).toBe('toxiproxy');
    expect(missingComponent('nothing doctor knows')).toBeNull();
  });
});
