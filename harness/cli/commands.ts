import type { CommandTable } from '../../src/cli/command.ts';

/** The certification commands (and `doctor`), plugged into the `dpone` CLI by bin/dpone.js. */
export const CERTIFY_COMMANDS: CommandTable = {
  doctor: {
    summary: 'say what this machine has and lacks for each route and provider, and how to install it',
    load: async () => (await import('./doctor.ts')).run,
  },
  'certify run': {
    summary:
      'run the certification suite (default: scenarios/*.yaml on the embedded route) and write evidence',
    load: async () => (await import('./certify-run.ts')).run,
  },
  'certify replay': {
    summary: 're-run one cell of an evidence file with the same seed and faults and print its verdict',
    load: async () => (await import('./certify-replay.ts')).run,
  },
  'certify verify': {
    summary: 'recompute an evidence file’s digest and re-run its checkers (exit 1 if anything differs)',
    load: async () => (await import('./certify-verify.ts')).run,
  },
  'certify gate': {
    summary:
      'exit 0 only if the evidence passes every mandatory acceptance item; write an unsigned review-only record',
    load: async () => (await import('./certify-gate.ts')).run,
  },
  'certify explain': {
    summary: 'show what a certification record binds and whether this runtime would trust it (offline)',
    load: async () => (await import('./certify-explain.ts')).run,
  },
  'certify merge': {
    summary: 'combine shard evidence files into one that verifies as if run whole (--out DIR)',
    load: async () => (await import('./certify-merge.ts')).run,
  },
  'certify report': {
    summary: 're-render index.html, summary.md and junit.xml from an evidence file',
    load: async () => (await import('./certify-report.ts')).run,
  },
};
