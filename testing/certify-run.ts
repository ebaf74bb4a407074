import { ok } from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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

export interface ConnectorCopyOptions {
  /** The plug-in module to copy, as `--connector` takes it: a path or a package name. */
  readonly connector: string;
  /** The folder the copy's module is written to, as `<dir>/<name>.mjs`. */
  readonly dir: string;
  /**
   * What tells the copy apart, so that it certifies beside the original: its module's file name
   * and the suffix of its plug-in name (`<meta.name>-<name>`) and of each of its routes' ids
   * (`<route id>-<name>`).
   */
  readonly name: string;
  /** JavaScript the module runs before its export, e.g. a function the entries below call. */
  readonly preamble?: string;
  /** JavaScript: entries of the copy over the plug-in's own (`base` is the plug-in copied), e.g. `target: { ...base.target, unsafeVariants: [] },`. */
  readonly plugin?: string;
  /** JavaScript: entries of the copy's `harness` over the plug-in's own, e.g. `target: { ...base.harness.target, stateFiles: ['x'] },`. */
  readonly harness?: string;
}

/**
 * Writes a copy of a plug-in with some of its parts replaced, as a module `certifyRun` (and every
 * worker of the run) loads: for a test that certifies a deliberately broken copy and expects the
 * harness to catch it. Returns the module's path.
 */
export function writeConnectorCopy(options: ConnectorCopyOptions): string {
  const suffix = JSON.stringify(`-${options.name}`);
  const module = join(options.dir, `${options.name}.mjs`);
  writeFileSync(
    module,
    `import base from ${JSON.stringify(options.connector)};
${options.preamble ?? ''}
export default {
  ...base,
  meta: { ...base.meta, name: base.meta.name + ${suffix} },
  ${options.plugin ?? ''}
  harness: {
    ...base.harness,
    routes: base.harness.routes.map((route) => ({ ...route, id: route.id + ${suffix} })),
    ${options.harness ?? ''}
  },
};
`,
  );
  return module;
}
