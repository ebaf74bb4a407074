#!/usr/bin/env node
// Entry point: Node >= 22.22 runs the TypeScript sources directly (type stripping).
import { main } from '../src/cli/main.ts';

process.exitCode = await main(process.argv.slice(2));
