/** The clock-skew fault's scenario schema (a branch of SCENARIO_SCHEMA's fault list). */
const offsetPattern = '^[+-][0-9]{1,4}[smhd]$';

export const clockSkewFault = {
  type: 'object',
  description:
    "Clock faults through libfaketime, as Jepsen's clock nemesis: a holder whose clock is offset dies at every journal transition and a normal retrier must finish within the journal's TTL bound; a clock jumps mid-run; a challenger with a skewed clock races a live holder at every transition; an operator with a skewed clock applies each recovery action during a live commit. UNVERIFIED where libfaketime is missing.",
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'clock-skew' },
    holder_offsets: {
      type: 'array',
      items: { type: 'string', pattern: offsetPattern },
      description:
        "Offsets of the dying holder's clock, libfaketime syntax (+5s, -365d). Default +5s, -5s, +365d, -365d; [] for none.",
    },
    challenger_offsets: {
      type: 'array',
      items: { type: 'string', pattern: offsetPattern },
      description: 'Offsets of the challenger racing a live holder. Default +1h, +365d; [] for none.',
    },
    jumps: {
      type: 'array',
      items: { type: 'string', pattern: offsetPattern },
      description:
        "Mid-run jumps of the holder's clock, right after it took its lease, before it dies in COMMITTING. Default +1h, -1h; [] for none.",
    },
    operator_offset: {
      type: 'string',
      pattern: offsetPattern,
      description:
        "The operator's clock offset while it applies each action during a live commit. Default +1h.",
    },
    lease_ttl_ms: {
      type: 'integer',
      minimum: 50,
      maximum: 60000,
      description:
        'Lease TTL of the generated workload. Default 150 (a dead holder’s lease is over soon); live-holder cells (challengers, operators) want a lease that outlives the cell, e.g. 30000.',
    },
    operator: {
      type: 'boolean',
      description: 'Run the operator cells (each recovery action during a live commit). Default true.',
    },
  },
} as const;
