#!/usr/bin/env node
// Entry point and composition root of the two halves: the runtime CLI (src/cli) and the
// certification commands of the harness, which src never imports. Node >= 22.22 runs the
// TypeScript sources directly (type stripping).
import { main } from '../src/cli/main.ts';
import { CERTIFY_COMMANDS } from '../harness/cli/commands.ts';

process.exitCode = await main(process.argv.slice(2), CERTIFY_COMMANDS);
