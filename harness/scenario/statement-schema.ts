/**
 * Scenario definitions of the statement-boundary and reference fault kinds (kept apart from
 * scenario-schema.ts, which lists them in its `faults` union).
 */
export const statementFault = {
  type: 'object',
  description:
    'Kill at every statement boundary: the clean reference run records a point on each side of every statement the target connector sends inside its guarded steps (stmt:<step>.<n>:before|after, named by step and ordinal, never by SQL); one cell per boundary (an `after` and the next `before` with nothing between them are one boundary) SIGKILLs a worker there, and on a route whose target connection goes through a proxy another cell cuts that connection there (reset_peer) and lets the worker run on. The runner settles each cell; exactly one mutation must remain.',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'statement' },
    modes: {
      type: 'array',
      minItems: 1,
      items: { enum: ['kill', 'cut'] },
      description:
        "kill: SIGKILL at the boundary; cut: the target's connection reset at the boundary (routes whose target goes through a proxy; elsewhere UNVERIFIED when named). Default kill, and cut where the route proxies its target.",
    },
    steps: {
      type: 'array',
      minItems: 1,
      items: { enum: ['prepare', 'mutate', 'query'] },
      description: 'Only the statements of these steps. Default all three.',
    },
  },
} as const;

export const referenceFault = {
  type: 'object',
  description:
    'The clean reference run as a cell of its own: one worker, no fault, run to its end and checked like any cell (it must end as a clean run ends, with exactly one mutation). Planned by itself, for every scenario of a workload, when the recorded reference run did not end cleanly: the run then FAILs with this cell as its evidence instead of stopping.',
  additionalProperties: false,
  required: ['kind'],
  properties: { kind: { const: 'reference' } },
} as const;
