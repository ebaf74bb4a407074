import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where the local provider found each server binary, or why it could not. */
export interface LocalBinaries {
  /** Folder holding initdb, pg_ctl and postgres. */
  readonly postgresBin: string | null;
  readonly toxiproxyServer: string | null;
  /** One line per missing binary, naming what was looked for. */
  readonly missing: readonly string[];
}

const POSTGRES_BIN_DIRS = [
  '/usr/lib/postgresql/15/bin',
  '/usr/lib/postgresql/16/bin',
  '/usr/lib/postgresql/17/bin',
];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, name))) return join(dir, name);
  }
  return null;
}

function goBin(env: NodeJS.ProcessEnv): string | null {
  if (env.GOPATH) return join(env.GOPATH.split(delimiter)[0]!, 'bin');
  try {
    const out = execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8', timeout: 5000, stdio: 'pipe' });
    return out.trim() ? join(out.trim().split(delimiter)[0]!, 'bin') : null;
  } catch {
    return null;
  }
}

/** Finds PostgreSQL server binaries and the Toxiproxy server on this machine. */
export function findLocalBinaries(env: NodeJS.ProcessEnv = process.env): LocalBinaries {
  const pgCandidates = [env.DPONE_PG_BIN, ...POSTGRES_BIN_DIRS].filter((d): d is string => !!d);
  const postgresBin =
    pgCandidates.find((dir) => ['initdb', 'pg_ctl', 'postgres'].every((b) => executable(join(dir, b)))) ??
    (onPath('initdb', env) && onPath('pg_ctl', env) ? join(onPath('initdb', env)!, '..') : null);
  const go = goBin(env);
  const toxiCandidates = [
    env.DPONE_TOXIPROXY_SERVER,
    onPath('toxiproxy-server', env),
    go ? join(go, 'server') : undefined,
    go ? join(go, 'toxiproxy-server') : undefined,
    '/root/go/bin/server',
    join(env.HOME ?? '/root', 'go/bin/server'),
  ].filter((p): p is string => !!p);
  const toxiproxyServer = toxiCandidates.find(executable) ?? null;
  const missing: string[] = [];
  if (!postgresBin)
    missing.push(
      'PostgreSQL server binaries (initdb, pg_ctl, postgres) not found in /usr/lib/postgresql/*/bin or on PATH',
    );
  if (!toxiproxyServer)
    missing.push('Toxiproxy server not found ($(go env GOPATH)/bin/server or toxiproxy-server on PATH)');
  return { postgresBin, toxiproxyServer, missing };
}
