import { execFileSync } from 'node:child_process';
import { hostname } from 'node:os';
import type { ConnectorCode, RanBy } from '../../src/contracts/certification.ts';
import { PACKAGE_ROOT, harnessDigest, runtimeDigest } from '../../src/cli/code-digest.ts';
import { suiteDigest } from '../../src/cli/shipped-suites.ts';

/**
 * What a run records about where it came from (evidence `environment`): the code that ran, by
 * digest, the suite it was asked for, the git commit, and who ran it. A certification binds these.
 */
export interface Provenance {
  readonly code: {
    readonly connectors: readonly ConnectorCode[];
    readonly runtime: string;
    readonly harness: string;
  };
  /** The shipped suite the run was asked for (`--suite`), with its digest; null for `--scenario` files. */
  readonly suite: { readonly name: string; readonly digest: string } | null;
  readonly git: { readonly commit: string; readonly dirty: boolean } | null;
  readonly ran_by: RanBy;
}

/** The package's git commit, when it is a checkout and git is there (else null). */
export function gitCommit(root: string = PACKAGE_ROOT): Provenance['git'] {
  const git = (args: string[]) =>
    execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      timeout: 5000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  try {
    const commit = git(['rev-parse', 'HEAD']);
    if (!/^[0-9a-f]{40}$/.test(commit)) return null;
    return { commit, dirty: git(['status', '--porcelain', '--untracked-files=no']) !== '' };
  } catch {
    return null;
  }
}

/** The CI run when in CI (GitHub Actions named precisely), else the machine. */
export function ranBy(env: NodeJS.ProcessEnv): RanBy {
  if (env.GITHUB_ACTIONS === 'true' && env.GITHUB_RUN_ID)
    return {
      kind: 'github-actions',
      where: `${env.GITHUB_SERVER_URL ?? 'https://github.com'}/${env.GITHUB_REPOSITORY ?? '?'}/actions/runs/${env.GITHUB_RUN_ID}/attempts/${env.GITHUB_RUN_ATTEMPT ?? '1'}`,
      workflow: env.GITHUB_WORKFLOW_REF ?? null,
    };
  return { kind: env.CI ? 'ci' : 'local', where: hostname(), workflow: null };
}

export function provenance(
  connectors: readonly ConnectorCode[],
  suite: string | undefined,
  env: NodeJS.ProcessEnv,
): Provenance {
  return {
    code: { connectors, runtime: runtimeDigest().digest, harness: harnessDigest().digest },
    suite: suite === undefined ? null : { name: suite, digest: suiteDigest(suite).digest },
    git: gitCommit(),
    ran_by: ranBy(env),
  };
}

/**
 * The provenance a run records: what it had at its start, unless the code changed while its cells
 * ran (workers load the files as they start): then the code is recorded as changed, and the gate
 * refuses the evidence (a run of mixed code certifies nothing).
 */
export function sameCodeAtEnd(start: Provenance, end: Provenance): Provenance {
  if (JSON.stringify(start.code) === JSON.stringify(end.code) && start.suite?.digest === end.suite?.digest)
    return start;
  return { ...start, code: { ...start.code, changed_during_run: true } as Provenance['code'] };
}
