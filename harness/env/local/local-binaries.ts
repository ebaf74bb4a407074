import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * Engine-neutral parts of the local provider's binary search: whether a file runs, what PATH holds,
 * and where the Toxiproxy server is. Each engine's server binaries are found in its own folder
 * (connectors/<engine>/harness/env/), on top of these.
 */

/** What the local provider reports when no Toxiproxy server is found. */
export const TOXIPROXY_MISSING =
  'Toxiproxy server not found ($(go env GOPATH)/bin/server or toxiproxy-server on PATH)';

/** True when `path` exists and this process may run it. */
export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first runnable `name` in `env.PATH`, or null. */
export function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
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

/** Finds the Toxiproxy server on this machine, or null. */
export function findToxiproxyServer(env: NodeJS.ProcessEnv = process.env): string | null {
  const go = goBin(env);
  const candidates = [
    env.DPONE_TOXIPROXY_SERVER,
    onPath('toxiproxy-server', env),
    go ? join(go, 'server') : undefined,
    go ? join(go, 'toxiproxy-server') : undefined,
    // Go's default GOPATH when `go` itself is not on PATH (a CI image that only kept the binary).
    join(env.HOME ?? homedir(), 'go/bin/server'),
  ].filter((p): p is string => !!p);
  return candidates.find(executable) ?? null;
}
