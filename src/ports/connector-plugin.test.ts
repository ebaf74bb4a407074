import { describe, expect, it } from 'vitest';
import { CONNECTOR_PLUGIN_API, defineConnector, pluginProblem } from './connector-plugin.ts';

const target = {
  capability: 'transactional-commit-marker' as const,
  fenceLocation: () => 'x',
  open: async () => {
    throw new Error('not opened');
  },
};

describe('pluginProblem', () => {
  it('accepts a v1 plug-in that gives none of the extension members', () => {
    expect(pluginProblem(defineConnector({ meta: { name: 'p', version: '1.0.0' }, target }))).toBeNull();
  });

  it('accepts the extension members a built-in engine gives, as functions', () => {
    const plugin = defineConnector({
      meta: { name: 'p', version: '1.0.0' },
      target: {
        ...target,
        version: 'p-transactional-commit-marker/1',
        openFenceReader: async () => {
          throw new Error('not opened');
        },
      },
      folder: '/x',
      workload: { fenceSchema: true },
    });
    expect(plugin.api).toBe(CONNECTOR_PLUGIN_API);
    expect(pluginProblem(plugin)).toBeNull();
  });

  it.each(['openPlain', 'openFenceReader', 'openFenceRaiser', 'openLeftovers'])(
    'refuses a target whose %s is not a function, naming it',
    (member) => {
      const plugin = {
        api: CONNECTOR_PLUGIN_API,
        meta: { name: 'p', version: '1' },
        target: { ...target, [member]: 'yes' },
      };
      expect(pluginProblem(plugin)).toBe(`target.${member} must be a function`);
    },
  );
});
