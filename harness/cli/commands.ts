import type { CommandTable } from '../../src/cli/command.ts';

/** The certification commands, plugged into the `dpone` CLI by bin/dpone.js. */
export const CERTIFY_COMMANDS: CommandTable = {
  'certify verify': {
    summary: 'recompute an evidence file’s digest and re-run its checkers (exit 1 if anything differs)',
    load: async () => (await import('./certify-verify.ts')).run,
  },
  'certify gate': {
    summary: 'exit 0 only if the evidence passes every mandatory acceptance item; write the certification',
    load: async () => (await import('./certify-gate.ts')).run,
  },
};
