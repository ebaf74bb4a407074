import type { CommandRun } from '../../src/cli/command.ts';
import { parseFlags } from '../../src/cli/args.ts';
import { EXIT_CODES, ERROR_CODES } from '../../src/contracts/errors.ts';
import { diagnose, renderDoctor } from '../doctor/doctor.ts';

/**
 * `dpone doctor [--json]`: what this machine has and lacks for each route and provider (and for
 * `npm test` and Airflow), with the command that installs each missing part. Every probe has a
 * timeout. Exit 0 when the default route (the engine inside Node, embedded) can run here, else 27
 * (DPONE_ENVIRONMENT_UNAVAILABLE); 2 for bad flags.
 */
export const run: CommandRun = async (args, io) => {
  const { values } = parseFlags(args, { json: { type: 'boolean' } });
  const report = await diagnose({
    env: io.env,
    nodeVersion: process.versions.node,
    isRoot: process.getuid?.() === 0,
  });
  io.stdout.write(values.json ? `${JSON.stringify(report)}\n` : renderDoctor(report));
  return report.default_ready ? 0 : EXIT_CODES[ERROR_CODES.ENVIRONMENT_UNAVAILABLE];
};
