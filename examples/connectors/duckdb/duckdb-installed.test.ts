import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

/**
 * A connector author depends on dpone-cert as a package: `npm pack` in a clone, then `npm install`
 * of the tarball in their own folder. Node refuses to strip types under node_modules, so the
 * installed CLI could not start (DPONE_INTERNAL … ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING);
 * bin/dpone.js now strips the package's own files. This test packs the checkout, installs the
 * tarball and @duckdb/node-api in a fresh folder outside it (from npm's cache, which the checkout's
 * own install filled), copies this plug-in there, where `dpone-cert` can only resolve to the
 * installed copy, and certifies one scenario with the installed CLI.
 */
const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
};

describe('dpone-cert installed from its tarball', () => {
  it('runs its CLI and certifies a plug-in that imports it, from a folder of its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-installed-'));
    const packed = await execa('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT });
    const tarball = join(dir, packed.stdout.trim().split('\n').at(-1)!);
    const author = join(dir, 'author');
    mkdirSync(join(author, 'duck'), { recursive: true });
    writeFileSync(
      join(author, 'package.json'),
      JSON.stringify({ name: 'author', private: true, type: 'module' }),
    );
    const duckdb = `@duckdb/node-api@${manifest.devDependencies['@duckdb/node-api']}`;
    await execa('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, duckdb], {
      cwd: author,
    });
    for (const file of readdirSync(HERE))
      if (file.endsWith('.ts') && !file.endsWith('.test.ts'))
        copyFileSync(join(HERE, file), join(author, 'duck', file));

    const bin = join(author, 'node_modules', 'dpone-cert', 'bin', 'dpone.js');
    const version = await execa(process.execPath, [bin, '--version'], { cwd: author });
    expect(version.stdout).toContain(`dpone ${manifest.version}`);
    expect(version.stderr).toBe('');

    const scenario = join(author, 'node_modules', 'dpone-cert', 'scenarios', 'intent-conflict.yaml');
    await execa(
      process.execPath,
      [
        bin,
        'certify',
        'run',
        '--route',
        'sqlite-to-duckdb',
        '--connector',
        './duck/duckdb-connector.ts',
        '--scenario',
        scenario,
        '--out',
        'out',
      ],
      { cwd: author, reject: false, env: { CI: 'true' } },
    );
    const evidence = JSON.parse(readFileSync(join(author, 'out', 'evidence.json'), 'utf8')) as {
      cells: { variant: string | null; verdict: string }[];
    };
    const routeCells = evidence.cells.filter((cell) => cell.variant === null);
    expect(routeCells.length).toBeGreaterThan(0);
    expect(routeCells.every((cell) => cell.verdict === 'PASS')).toBe(true);
    expect(evidence.cells.some((cell) => cell.variant !== null && cell.verdict === 'FAIL')).toBe(true);
  }, 300_000);
});
