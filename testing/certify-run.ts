import { ok } from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { Evidence } from '../harness/evidence/evidence-types.ts';

const BIN = fileURLToPath(new URL('../bin/dpone.js', import.meta.url));

export interface CertifyRunOptions {
  /** The route to certify: the plug-in's own, or a copy's. */
  readonly route: string;
  /** The plug-in module, as `--connector` takes it: a path or a package name. */
  readonly connector: string;
  /** Scenario files, each passed as `--scenario`. */
  readonly scenarios: readonly string[];
  /** The folder the run starts in; its evidence is written to `<dir>/out-<route>`. */
  readonly dir: string;
  /** `--provider` (e.g. `local`, for the server kills); the CLI's default when absent. */
  readonly provider?: string;
  /** `--reporter` (e.g. `markdown`, quicker than the default HTML report); the CLI's default when absent. */
  readonly reporter?: string;
}

export interface CertifyRunResult {
  /** The folder the run wrote its evidence and reports to. */
  readonly out: string;
  /** The CLI's exit code (a FAIL run exits non-zero too) and what it printed. */
  readonly exitCode: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
  /** The evidence the run wrote; reading it fails, saying why, when the run wrote none (a refused route). */
  readonly evidence: Evidence;
}

/**
 * `dpone certify run` of a plug-in route in a child process, as CI runs it (`CI=true`: a server
 * the route needs and cannot start fails the run instead of skipping it), and what it wrote. A run
 * that FAILs exits non-zero: its evidence is what a test asserts on, not the exit code.
 */
export async function certifyRun(options: CertifyRunOptions): Promise<CertifyRunResult> {
  const out = join(options.dir, `out-${options.route}`);
  const args = ['certify', 'run', '--route', options.route, '--connector', options.connector];
  for (const scenario of options.scenarios) args.push('--scenario', scenario);
  if (options.provider !== undefined) args.push('--provider', options.provider);
  if (options.reporter !== undefined) args.push('--reporter', options.reporter);
  const { exitCode, stdout, stderr } = await execa(process.execPath, [BIN, ...args, '--out', out], {
    cwd: options.dir,
    reject: false,
    env: { CI: 'true' },
  });
  const file = join(out, 'evidence.json');
  const evidence = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Evidence) : undefined;
  return {
    out,
    exitCode,
    stdout,
    stderr,
    get evidence(): Evidence {
      ok(evidence, `certify run of ${options.route} wrote no evidence (exit ${exitCode}): ${stderr}`);
      return evidence;
    },
  };
}
