import { join } from 'node:path';
import {
  executable,
  findToxiproxyServer,
  onPath,
  TOXIPROXY_MISSING,
} from '../../../../harness/env/local/local-binaries.ts';

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

/** Finds PostgreSQL server binaries and the Toxiproxy server on this machine. */
export function findLocalBinaries(env: NodeJS.ProcessEnv = process.env): LocalBinaries {
  const pgCandidates = [env.DPONE_PG_BIN, ...POSTGRES_BIN_DIRS].filter((d): d is string => !!d);
  const postgresBin =
    pgCandidates.find((dir) => ['initdb', 'pg_ctl', 'postgres'].every((b) => executable(join(dir, b)))) ??
    (onPath('initdb', env) && onPath('pg_ctl', env) ? join(onPath('initdb', env)!, '..') : null);
  const toxiproxyServer = findToxiproxyServer(env);
  const missing: string[] = [];
  if (!postgresBin)
    missing.push(
      'PostgreSQL server binaries (initdb, pg_ctl, postgres) not found in /usr/lib/postgresql/*/bin or on PATH',
    );
  if (!toxiproxyServer) missing.push(TOXIPROXY_MISSING);
  return { postgresBin, toxiproxyServer, missing };
}
