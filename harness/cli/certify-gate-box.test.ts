import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { descendants, parseXml } from '../reporters/fixtures/xml-elements.ts';
import { CONNECTOR_PARTS, EMBEDDED_ENGINE } from '../routes/route-registry.ts';

/**
 * Issue 35 item 1 through the real CLI: every rendering of a run (index.html, summary.md,
 * junit.xml, the last line of `certify run`) carries the gate's answer and its lines, the same
 * lines `certify gate` prints for that evidence.
 */

/** The server engine that plays `role` only. */
const serverOnly = (role: 'source' | 'target') =>
  Object.keys(CONNECTOR_PARTS).find(
    (engine) => CONNECTOR_PARTS[engine]!.service && CONNECTOR_PARTS[engine]!.roles.join() === role,
  )!;
/** A route between two servers (a source-only engine into a target-only one): it needs a provider of servers. */
const SERVER_ROUTE = `${serverOnly('source')}-to-${serverOnly('target')}`;
const EMBEDDED_ROUTE = `${EMBEDDED_ENGINE}-to-${EMBEDDED_ENGINE}`;

const BIN = fileURLToPath(new URL('../../bin/dpone.js', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function dpone(args: readonly string[], cwd: string) {
  return execa(process.execPath, [BIN, ...args], { cwd, reject: false, env: { CI: 'true' } });
}

interface GateJson {
  readonly lines: readonly { id: string; status: string; cells: number }[];
}

async function renderings(args: readonly string[], route: string) {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-gate-box-'));
  dirs.push(dir);
  writeFileSync(
    join(dir, 'small.yaml'),
    'name: small\nvariants: false\nfaults:\n  - kind: intent-conflict\n',
  );
  const run = await dpone(['certify', 'run', ...args, '--out', 'out'], dir);
  const gate = await dpone(
    ['certify', 'gate', '--route', route, '--evidence', 'out/evidence.json', '--json'],
    dir,
  );
  return {
    run,
    lastLine: run.stdout.trimEnd().split('\n').at(-1),
    gate: JSON.parse(gate.stdout) as GateJson,
    evidence: JSON.parse(readFileSync(join(dir, 'out', 'evidence.json'), 'utf8')),
    html: readFileSync(join(dir, 'out', 'index.html'), 'utf8'),
    markdown: readFileSync(join(dir, 'out', 'summary.md'), 'utf8'),
    junit: parseXml(readFileSync(join(dir, 'out', 'junit.xml'), 'utf8')),
  };
}

describe('the gate in every rendering', () => {
  it('an UNVERIFIED default-suite run (no Docker engine): "No: this is the default suite", every line in all three', async () => {
    const result = await renderings(['--route', SERVER_ROUTE, '--provider', 'docker'], SERVER_ROUTE);
    expect(result.run.exitCode, result.run.stderr).toBe(3);
    const answer = 'Can this route be enabled? No: this is the default suite; gating needs --suite full';
    expect(result.lastLine).toBe(answer);
    expect(result.run.stdout).toMatch(/^report: out\/index\.html/m);
    expect(result.run.stdout).toMatch(/^next: dpone doctor/m);
    expect(result.evidence.environment.suite.name).toBe('default');

    // HTML: the answer before the run facts, one row per gate line with its status and cells.
    const box = result.html.slice(result.html.indexOf('id="gate"'), result.html.indexOf('</section>'));
    expect(result.html.indexOf('id="gate"')).toBeLessThan(result.html.indexOf('route</dt>'));
    expect(box).toContain('No: this is the default suite; gating needs --suite full');
    const rows = [
      ...box.matchAll(
        /<tr data-status="(\w+)">[\s\S]*?<code>([\w-]+)<\/code><\/th>\s*<td class="num">(\d+)/g,
      ),
    ];
    expect(rows.map(([, status, id, cells]) => ({ id, status, cells: Number(cells) }))).toEqual(
      result.gate.lines.map(({ id, status, cells }) => ({ id, status, cells })),
    );
    expect(box).toMatch(/data-status="FAIL">[\s\S]*?airflow-one-mutation/);
    // The header is not green: the run cannot enable the route.
    expect(result.html).toMatch(/<header class="run v-UNVERIFIED">/);

    // Markdown: the answer, then a table row per line.
    expect(result.markdown).toContain(`**${answer}**`);
    for (const line of result.gate.lines)
      expect(result.markdown).toContain(`| ${line.status} | \`${line.id}\` | ${line.cells} |`);

    // JUnit: one case per gate line, skipped (not a gating run) with the line's status in the message.
    const suite = descendants(result.junit, 'testsuite').find((s) => s.attributes.name?.startsWith('gate:'))!;
    const cases = descendants(suite, 'testcase');
    expect(cases.map((c) => c.attributes.name)).toEqual(result.gate.lines.map((line) => line.id));
    for (const [index, testcase] of cases.entries()) {
      const skipped = testcase.children.find((child) => child.name === 'skipped')!;
      expect(skipped.attributes.message).toContain(`Line: ${result.gate.lines[index]!.status} (`);
    }

    // Item 2: no variant ran, so none is SURVIVED anywhere and no cell is counted as run.
    for (const record of result.evidence.sensitivity) {
      expect(record).toMatchObject({ state: 'not-run', caught: false, cells_run: 0 });
      expect(record.not_run_reason).toMatch(/no Docker engine answers/);
    }
    expect(result.html).not.toContain('SURVIVED');
    expect(result.markdown).not.toContain('SURVIVED');
    expect(result.run.stdout).not.toContain('SURVIVED');
    const sensitivity = descendants(result.junit, 'testsuite').find(
      (s) => s.attributes.name === 'sensitivity',
    )!;
    expect(descendants(sensitivity, 'failure')).toHaveLength(0);
    expect(descendants(sensitivity, 'skipped')).toHaveLength(result.evidence.sensitivity.length);
    expect(descendants(result.junit, 'failure')).toHaveLength(0);
  }, 60_000);

  it('a PASS run of --scenario files says why it cannot enable the route, and the cells stay PASS', async () => {
    const result = await renderings(['--scenario', 'small.yaml'], EMBEDDED_ENGINE);
    expect(result.run.exitCode, result.run.stderr).toBe(0);
    expect(result.evidence.environment.suite).toBeNull();
    const answer =
      "Can this route be enabled? No: this run's scenarios were chosen with --scenario; gating needs --suite full";
    expect(result.lastLine).toBe(answer);
    expect(result.run.stdout).toMatch(
      new RegExp(`^next: dpone certify run --route ${EMBEDDED_ROUTE} --suite full --gate`, 'm'),
    );
    expect(result.html).toContain('Cells: <span class="badge v-PASS">PASS</span>');
    expect(result.html).not.toMatch(/<header class="run v-PASS">/);
    expect(result.markdown).toMatch(
      new RegExp(`^## dpone certify: route \`${EMBEDDED_ROUTE}\`, cells \\*\\*PASS\\*\\*`),
    );
    expect(result.markdown).toContain(`**${answer}**`);
  }, 60_000);
});
