import { describe, expect, it } from 'vitest';
import { INSTALL, missingComponent } from './install-hints.ts';
import { ENGINE_SERVICES, ENGINE_SERVICE_NAMES } from './services.ts';

// Engine-neutral (no engine is named outside its folder); each engine's words are tested in its
// folder (connectors/<engine>/harness/env/service.test.ts).
describe('install hints', () => {
  it("has a hint for every component an engine's matchers name, taken from its entry", () => {
    for (const name of ENGINE_SERVICE_NAMES) {
      const { hints, matchers } = ENGINE_SERVICES[name].install;
      for (const [component, hint] of Object.entries(hints))
        expect(INSTALL[component as keyof typeof INSTALL]).toBe(hint);
      for (const [, component] of matchers) expect(Object.keys(hints)).toContain(component);
    }
  });

  it('tries the matchers most specific first: a reason naming Docker is about Docker, whatever else it names', () => {
    const words = ENGINE_SERVICE_NAMES.map((name) => ENGINE_SERVICES[name].label).join(', ');
    expect(missingComponent(`use --provider docker for ${words}`)).toBe('docker');
    expect(missingComponent('external provider: set DPONE_X_URL')).toBe('external');
    expect(missingComponent('Toxiproxy server not found')).toBe('toxiproxy');
    expect(missingComponent('nothing doctor knows')).toBeNull();
  });
});
