/** The shadow fault's scenario schema (a branch of SCENARIO_SCHEMA's fault list). */
export const SHADOW_MODES = ['shadow', 'legacy'] as const;

export const shadowFault = {
  type: 'object',
  description:
    "Rollout modes under faults (issue 36): workers run under a deployment policy in shadow (the legacy write plus shadow records) or legacy mode, each retried after a clean run and after SIGKILLs at every point of the shadow path (the write's begin, both sides of the target commit and of the shadow journal's record), and two shadow workers racing. Shadow must leave the target exactly as legacy does, and `dpone shadow report` must count exactly the extra mutations the target's own rows show (an attempt killed between the commit and its record may only be listed as possible). Needs a workload written without a fence (workload.fence: none), as legacy writes.",
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'shadow' },
    modes: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { enum: SHADOW_MODES },
      description: 'The rollout modes whose cells are planned. Default shadow and legacy.',
    },
  },
} as const;
