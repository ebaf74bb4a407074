import type { CommandTable } from '../../src/cli/command.ts';

/** The certification commands, plugged into the `dpone` CLI by bin/dpone.js. */
export const CERTIFY_COMMANDS: CommandTable = {};
