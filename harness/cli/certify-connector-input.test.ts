import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/contracts/errors.ts';
import { acceptanceCells, sealEvidence } from '../gate/fixtures/certified-evidence.ts';
import { EMBEDDED_ENGINE } from '../routes/route-registry.ts';

/** Bad connector plug-ins through the real CLI: `--connector` and package.json `dpone.connectors`. */

/** A plug-in route: the embedded engine (every plug-in route's source) into a made-up target. */
const ROUTE_ID = `${EMBEDDED_ENGINE}-to-example`;
/** The routes a plug-in declares, as its module's source text. */
const ROUTES = `routes: [{ id: '${ROUTE_ID}', source: '${EMBEDDED_ENGINE}' }]`;

const BIN = fileURLToPath(new URL('../../bin/dpone.js', import.meta.url));

function certify(args: readonly string[], cwd: string) {
  return execa(process.execPath, [BIN, 'certify', ...args], { cwd, reject: false, env: { CI: 'true' } });
}

/** A plug-in module's source: a valid `dpone.connector/v1` object, with `override` spliced over it. */
function pluginSource(override = '', harness = ROUTES): string {
  return `export default {
    api: 'dpone.connector/v1',
    meta: { name: 'dpone-connector-example', version: '2.3.4' },
    target: { capability: 'transactional-commit-marker', fenceLocation: () => 'x', open: async () => { throw new Error('never opened'); } },
    harness: { ${harness}, target: { prepare: async () => { throw new Error('never prepared'); } } },
    ${override}
  };\n`;
}

function folder(files: Readonly<Record<string, string>>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-connector-input-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const RUN = ['run', '--route', ROUTE_ID, '--out', 'out'];
const CASES: readonly (readonly [string, Record<string, string>, string[], string, RegExp])[] = [
  [
    'a module path that does not exist',
    {},
    ['--connector', './missing.mjs'],
    'DPONE_OBJECT_NOT_FOUND',
    /--connector: the connector module "\.\/missing\.mjs" \(or a module it imports\) is not found/,
  ],
  [
    'a package that is not installed',
    {},
    ['--connector', 'dpone-connector-nowhere'],
    'DPONE_OBJECT_NOT_FOUND',
    /no connector module "dpone-connector-nowhere" is installed/,
  ],
  [
    'a module that throws while loading',
    { 'plugin.mjs': "throw new Error('boom');\n" },
    ['--connector', './plugin.mjs'],
    'DPONE_ENVIRONMENT_UNAVAILABLE',
    /the connector module "\.\/plugin\.mjs" failed to load/,
  ],
  [
    'a module that exports no connector object',
    { 'plugin.mjs': 'export const nothing = 1;\n' },
    ['--connector', './plugin.mjs'],
    'DPONE_INVALID_INPUT',
    /"\.\/plugin\.mjs" is not a dpone connector: it exports no connector object/,
  ],
  [
    'a connector of another plug-in API version',
    { 'plugin.mjs': pluginSource("api: 'dpone.connector/v2',") },
    ['--connector', './plugin.mjs'],
    'DPONE_INVALID_INPUT',
    /is not a dpone connector: its api is not "dpone\.connector\/v1"/,
  ],
  [
    'a connector whose meta.version is not a version',
    { 'plugin.mjs': pluginSource("meta: { name: 'dpone-connector-example', version: '1.0 beta' },") },
    ['--connector', './plugin.mjs'],
    'DPONE_INVALID_INPUT',
    /meta\.version is not a version/,
  ],
  [
    'a connector with no harness parts',
    { 'plugin.mjs': pluginSource('harness: undefined,') },
    ['--connector', './plugin.mjs'],
    'DPONE_INVALID_INPUT',
    /connector dpone-connector-example exports no harness parts/,
  ],
  [
    'a target state file outside the cell folder',
    {
      'plugin.mjs': pluginSource(
        `harness: { ${ROUTES}, target: { prepare: async () => ({}), stateFiles: ['../elsewhere.db'] } },`,
      ),
    },
    ['--connector', './plugin.mjs'],
    'DPONE_INVALID_INPUT',
    /harness\.target\.stateFiles must list plain file names of its own/,
  ],
  [
    'a target state file the harness writes itself',
    {
      'plugin.mjs': pluginSource(
        `harness: { ${ROUTES}, target: { prepare: async () => ({}), stateFiles: ['target.x', 'workload.yaml'] } },`,
      ),
    },
    ['--connector', './plugin.mjs'],
    'DPONE_INVALID_INPUT',
    /harness\.target\.stateFiles must list plain file names of its own/,
  ],
  [
    'package.json dpone.connectors that is not a list',
    {
      'plugin.mjs': pluginSource(),
      'package.json': JSON.stringify({ dpone: { connectors: './plugin.mjs' } }),
    },
    [],
    'DPONE_INVALID_INPUT',
    /package\.json dpone\.connectors must be a list of module names or paths/,
  ],
  [
    'package.json dpone.connectors naming a missing module',
    { 'package.json': JSON.stringify({ dpone: { connectors: ['./gone.mjs'] } }) },
    [],
    'DPONE_OBJECT_NOT_FOUND',
    /the connector module "\.\/gone\.mjs" \(or a module it imports\) is not found/,
  ],
];

describe('certify run with a bad connector plug-in', () => {
  it.each(CASES)(
    '%s: one error line, its code and exit code, nothing run',
    async (_label, files, flags, code, message) => {
      const dir = folder(files);
      const result = await certify([...RUN, ...flags], dir);
      expect(result.exitCode).toBe(EXIT_CODES[code as keyof typeof EXIT_CODES]);
      const lines = result.stderr.split('\n').filter((line) => line.startsWith('dpone:'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${code}:`);
      expect(lines[0]).toMatch(message);
      expect(result.stdout).toBe(''); // no run started: it would have announced its id
      expect(existsSync(join(dir, 'out', 'evidence.json'))).toBe(false);
    },
  );

  it('certify gate refuses the same bad module the same way, before reading a verdict', async () => {
    const dir = folder({ 'evidence.json': JSON.stringify(sealEvidence(acceptanceCells())) });
    const result = await certify(
      ['gate', '--route', ROUTE_ID, '--evidence', 'evidence.json', '--connector', './missing.mjs'],
      dir,
    );
    expect(result.exitCode).toBe(EXIT_CODES.DPONE_OBJECT_NOT_FOUND);
    expect(result.stderr).toMatch(
      /DPONE_OBJECT_NOT_FOUND: --connector: the connector module "\.\/missing\.mjs"/,
    );
    expect(existsSync(join(dir, 'certifications'))).toBe(false);
  });

  it('a good module with an unknown route lists the routes it does declare', async () => {
    const dir = folder({ 'plugin.mjs': pluginSource() });
    const other = `${EMBEDDED_ENGINE}-to-other`;
    const result = await certify(['run', '--route', other, '--connector', './plugin.mjs'], dir);
    expect(result.exitCode).toBe(EXIT_CODES.DPONE_INVALID_INPUT);
    expect(result.stderr).toMatch(new RegExp(`unknown route "${other}" \\(known: .*${ROUTE_ID}`));
  });
});
