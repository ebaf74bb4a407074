import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evidenceFixture, FIXTURE_ROUTE, HOSTILE_SCENARIO } from './fixtures/evidence-fixture.ts';
import { descendants, parseXml } from './fixtures/xml-elements.ts';
import { inflatePage, unpackLazyBodies } from './html-lazy-bodies.ts';
import { renderHtmlReport } from './html-page.ts';
import { renderJunit, writeJunitReport } from './junit-reporter.ts';
import { renderMarkdownSummary, writeMarkdownSummary } from './markdown-reporter.ts';
import { writeHtmlReport } from './html-reporter.ts';
import { cellTag, verdictSymbol } from './cell-summary.ts';
import type { GateResult } from '../gate/gate.ts';
import { reportGate } from './report-gate.ts';
import { TRANSITIONS } from '../../src/contracts/states.ts';

const evidence = evidenceFixture();
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('junit reporter', () => {
  const root = parseXml(renderJunit(evidence));
  const cases = descendants(root, 'testcase');
  const cellCases = cases.filter((testcase) => !testcase.attributes.classname?.endsWith('.sensitivity'));

  it('writes well-formed XML with one test case per cell', () => {
    expect(root.name).toBe('testsuites');
    expect(cellCases.map((testcase) => testcase.attributes.name).sort()).toEqual(
      evidence.cells.map((cell) => cell.id).sort(),
    );
  });

  it('gives a failed cell a <failure> whose message is the failing check', () => {
    const failed = cellCases.find(
      (testcase) => testcase.attributes.name === 'crash/d1/target.commit:after#1',
    )!;
    const failure = failed.children.find((child) => child.name === 'failure')!;
    expect(failure.attributes.message).toBe(
      'mutation-count: the mutation landed 2 times (audit), expected 1',
    );
    expect(failure.text).toContain('reproduce: node bin/dpone.js certify run');
  });

  it('never reports UNVERIFIED as a pass and fails a surviving unsafe variant', () => {
    const unverified = cellCases.find((testcase) => testcase.attributes.name === 'intent-conflict')!;
    expect(unverified.children.map((child) => child.name)).toEqual(['skipped']);
    const survived = cases.find(
      (testcase) => testcase.attributes.name === 'unsafe variant ignore-epoch is caught',
    )!;
    expect(survived.children.map((child) => child.name)).toEqual(['failure']);
    expect(root.attributes.failures).toBe('2');
  });

  it('keeps the hostile scenario name as text', () => {
    const suite = descendants(root, 'testsuite').find((s) => s.attributes.name === HOSTILE_SCENARIO);
    expect(suite).toBeDefined();
  });
});

describe('markdown reporter', () => {
  const markdown = renderMarkdownSummary(evidence);

  it('states the verdict and lists the failures first, each with its reproduce command', () => {
    expect(markdown).toMatch(
      new RegExp(`^## dpone certify: route \`${FIXTURE_ROUTE}\`, cells \\*\\*FAIL\\*\\*`),
    );
    const failure = markdown.indexOf('**FAIL** `crash/d1/target.commit:after#1`');
    const unknown = markdown.indexOf('**UNKNOWN** `race/8`');
    expect(failure).toBeGreaterThan(0);
    expect(unknown).toBeGreaterThan(failure);
    expect(markdown).toContain(
      `reproduce: \`node bin/dpone.js certify run --route ${FIXTURE_ROUTE} --seed 42 --cell 'crash/d1/target.commit:after#1'\``,
    );
    expect(markdown).toContain('SURVIVED: ignore-epoch');
    // The failed cell's reason is its mutation count; parity's first difference is shown beside it.
    expect(markdown).toContain('  first difference at id=7: duplicated in the target');
  });

  it('stays pull-request-comment sized and renders no markup from evidence', () => {
    expect(markdown.length).toBeLessThan(65_536);
    expect(markdown).not.toContain('<b>');
  });
});

describe('html reporter', () => {
  const page = renderHtmlReport(evidence);

  it('has the run facts at the top and a matrix with one chip per route cell', () => {
    expect(page.indexOf('route</dt>')).toBeLessThan(page.indexOf('id="matrix"'));
    const matrix = page.slice(page.indexOf('id="matrix"'), page.indexOf('id="sensitivity"'));
    expect(matrix.match(/class="chip /g)).toHaveLength(
      evidence.cells.filter((cell) => cell.variant === null).length,
    );
    expect(page).toContain('1/2 unsafe variants killed; SURVIVED: ignore-epoch');
  });

  it('escapes a <script> in a scenario name and in check details', () => {
    expect(page).not.toContain(HOSTILE_SCENARIO);
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(page).not.toContain('<b>no engine</b>');
    expect(page.match(/<script>/g)).toHaveLength(1);
  });

  it('lists failures first, variant cells last, with the timeline markers and journal versions of the failed cell', () => {
    const cells = [...page.matchAll(/<details[^>]*data-verdict="(\w+)"/g)].map((match) => match[1]);
    // Route cells worst first; the unsafe-variant cell (a wanted FAIL) comes last, filtered apart.
    expect(cells).toEqual(['FAIL', 'UNKNOWN', 'UNVERIFIED', 'PASS', 'PASS', 'PASS', 'VARIANT']);
    const failed = page.slice(page.indexOf('id="cell-1"'), page.indexOf('id="cell-2"'));
    expect(failed).toContain('✕ SIGKILL at target.commit:after #1');
    expect(failed).toMatch(/<b>v4<\/b> COMMITTING→TARGET_COMMITTED/);
    expect(failed).toMatch(/<b>2<\/b>target mutations/);
    expect(failed).toContain('first difference at id=7: duplicated in the target');
    expect(failed).toContain('--cell &#39;crash/d1/target.commit:after#1&#39;');
  });

  it('is self-contained: no external URL is loaded', () => {
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(page).not.toMatch(/@import|url\(/);
  });
});

describe('reporter files', () => {
  it('writes index.html, summary.md and junit.xml into the directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dpone-reports-'));
    dirs.push(dir);
    await Promise.all([
      writeHtmlReport(evidence, dir),
      writeMarkdownSummary(evidence, dir),
      writeJunitReport(evidence, dir),
    ]);
    expect(await readFile(join(dir, 'index.html'), 'utf8')).toMatch(/^<!doctype html>/);
    expect(await readFile(join(dir, 'summary.md'), 'utf8')).toContain('FAIL');
    expect(await readFile(join(dir, 'junit.xml'), 'utf8')).toMatch(/^<\?xml/);
  });
});

describe('cell chips', () => {
  it('name a loss cell by its loss mode, next to its verdict symbol', () => {
    const [cell] = evidence.cells;
    const loss = {
      ...cell!,
      fault: { kind: 'journal-loss', mode: 'rollback', point: 'target.commit:after' },
    };
    expect(cellTag(loss)).toBe(`rollback ${verdictSymbol(cell!.verdict)}`);
  });
});

describe('the gate in each rendering of a gating (full-suite) run', () => {
  const full = {
    ...evidence,
    environment: { ...evidence.environment, suite: { name: 'full', digest: 'x' } },
  };
  const failing: GateResult = {
    passed: false,
    lines: [
      { id: 'evidence-integrity', status: 'PASS', cells: 7, detail: 'agree' },
      { id: 'airflow-one-mutation', status: 'FAIL', cells: 0, detail: 'no airflow-live cell' },
      { id: 'run-scope', status: 'UNVERIFIED', cells: 6, detail: '1 of 6 route cells could not run here' },
      { id: 'run-verdict', status: 'UNKNOWN', cells: 6, detail: 'run verdict UNKNOWN' },
    ],
  };

  it('names the lines that are not PASS, fails/errs/skips them in JUnit and colours the header red', () => {
    const gate = reportGate(full, failing);
    expect(gate.answer).toBe('No: airflow-one-mutation FAIL, run-scope UNVERIFIED, run-verdict UNKNOWN');
    const suite = descendants(parseXml(renderJunit(full, undefined, gate)), 'testsuite')[0]!;
    expect(suite.attributes.name).toBe(`gate: Can this route be enabled? ${gate.answer}`);
    const kinds = descendants(suite, 'testcase').map((c) => c.children.map((child) => child.name).join());
    expect(kinds).toEqual(['', 'failure', 'skipped', 'error']);
    expect(renderHtmlReport(full, undefined, gate)).toMatch(/<header class="run v-FAIL">/);
    expect(renderMarkdownSummary(full, undefined, gate)).toContain(
      '| FAIL | `airflow-one-mutation` | 0 | no airflow-live cell |',
    );
  });

  it('says yes only when every line is PASS, and never for a shard', () => {
    const passing: GateResult = { passed: true, lines: [failing.lines[0]!] };
    const yes = reportGate(full, passing);
    expect(yes.enabled).toBe(true);
    expect(yes.answer).toMatch(/^Yes: every gate line PASS/);
    expect(renderHtmlReport(full, undefined, yes)).toMatch(/<header class="run v-PASS">/);
    const shard = reportGate({ ...full, shard: { index: 1, count: 2 } }, passing);
    expect(shard.enabled).toBe(false);
    expect(shard.answer).toMatch(/^No: this is shard 1\/2/);
  });

  it('says so when the gate was not evaluated, in every rendering', () => {
    expect(renderHtmlReport(evidence)).toContain('Can this route be enabled? Not evaluated');
    expect(renderMarkdownSummary(evidence)).toContain('Can this route be enabled? Not evaluated');
    expect(renderJunit(evidence)).not.toContain('gate:');
  });
});

describe('honest variant states in every rendering', () => {
  // The fixture's variant cell could not run here; its variant is then "not run", never SURVIVED.
  const variantCell = evidence.cells.find((cell) => cell.variant !== null)!;
  const why = { name: 'environment', verdict: 'UNVERIFIED' as const, detail: 'no Docker engine answers' };
  const unrun = {
    ...evidence,
    verdict: 'UNVERIFIED' as const,
    cells: evidence.cells.map((cell) =>
      cell === variantCell ? { ...cell, verdict: 'UNVERIFIED' as const, checks: [why] } : cell,
    ),
    sensitivity: [
      {
        variant: variantCell.variant!,
        caught: false,
        state: 'not-run' as const,
        cells_failed: 0,
        cells_run: 0,
        cells_not_run: 1,
        not_run_reason: why.detail,
      },
    ],
  };

  it('HTML: "not run" with the reason, no SURVIVED, and no variant cell counted as ran', () => {
    const page = renderHtmlReport(unrun);
    const table = page.slice(
      page.indexOf('class="variants"'),
      page.indexOf('</table>', page.indexOf('class="variants"')),
    );
    expect(table).toContain('data-state="not-run"');
    expect(table).toContain('not run: 0 of 1 cells could run');
    expect(table).toContain('no Docker engine answers');
    expect(page).not.toContain('SURVIVED');
    expect(page).toContain('0 more ran against unsafe');
    expect(page).toContain('(1 planned against unsafe variants could not run)');
  });

  it('Markdown: the reason once in the sensitivity line, the variant row says not-run', () => {
    const markdown = renderMarkdownSummary(unrun);
    expect(markdown).toContain('0/1 unsafe variants killed; 1 not run (no Docker engine answers)');
    expect(markdown).toMatch(/\| `no-fence` \| not-run \| .* \| not run: 0 of 1 cells could run \|/);
    expect(markdown).not.toContain('SURVIVED');
  });

  it('JUnit: the variant case and its cell are <skipped>, never a failure', () => {
    const root = parseXml(renderJunit(unrun));
    const cases = descendants(root, 'testcase');
    const variant = cases.find(
      (c) => c.attributes.name === `unsafe variant ${variantCell.variant} is caught`,
    )!;
    expect(variant.children.map((child) => child.name)).toEqual(['skipped']);
    expect(variant.children[0]!.attributes.message).toBe('not run: no Docker engine answers');
    const cellCase = cases.find((c) => c.attributes.name === variantCell.id)!;
    expect(cellCase.children.map((child) => child.name)).toEqual(['skipped']);
    expect(root.attributes.failures).toBe('1');
  });

  it('a killed variant names the checks that killed it and its counts', () => {
    const markdown = renderMarkdownSummary(evidence);
    expect(markdown).toContain('killed by `mutations`; killed in 1 of 1 cells run, 0 skipped once killed');
  });
});

describe('why not verified', () => {
  const why = (detail: string) => [{ name: 'environment', verdict: 'UNVERIFIED' as const, detail }];
  const grouped = {
    ...evidence,
    cells: evidence.cells.map((cell, index) =>
      cell.variant === null && cell.verdict === 'PASS' && index > 2
        ? {
            ...cell,
            verdict: 'UNVERIFIED' as const,
            checks: why('docker provider: no Docker engine answers'),
          }
        : cell,
    ),
  };
  const unverified = grouped.cells.filter((cell) => cell.variant === null && cell.verdict === 'UNVERIFIED');

  it('groups the UNVERIFIED cells by reason with the install command doctor gives, once per reason', () => {
    const markdown = renderMarkdownSummary(grouped);
    const section = markdown.slice(markdown.indexOf('### Why not verified'));
    const lines = section.split('\n').filter((line) => line.startsWith('- **'));
    const docker = lines.find((line) => line.includes('no Docker engine answers'))!;
    expect(docker).toContain(
      `**${unverified.filter((c) => c.checks[0]!.detail.includes('Docker')).length} UNVERIFIED**`,
    );
    expect(docker).toContain('fix: `Docker Engine from https://docs.docker.com/engine/install/');
    expect(markdown.match(/no Docker engine answers/g)).toHaveLength(1);
    // An UNKNOWN cell ran and nothing decided: its fix is to replay it.
    expect(lines.find((line) => line.includes('UNKNOWN'))).toContain(
      'fix: `replay it alone: node bin/dpone.js',
    );
  });

  it('puts the panel in the HTML header, right after the gate box', () => {
    const page = renderHtmlReport(grouped);
    const panel = page.indexOf('id="not-verified"');
    expect(panel).toBeGreaterThan(page.indexOf('id="gate"'));
    expect(panel).toBeLessThan(page.indexOf('route</dt>'));
    expect(page.slice(panel)).toContain('fix: <code>Docker Engine from');
  });
});

describe('HTML pictures: the protocol diagram, swimlanes, FAIL narratives, lazy details', () => {
  // What a reader sees with every cell open: the packed details inflated in place.
  const raw = renderHtmlReport(evidence);
  const page = inflatePage(raw);
  const diagram = page.slice(
    page.indexOf('<section id="diagram">'),
    page.indexOf('</section>', page.indexOf('<section id="diagram">')),
  );

  it('draws every transition of the table and colours the FAIL cell’s place red, never green', () => {
    for (const [from, tos] of Object.entries(TRANSITIONS))
      for (const to of tos) expect(diagram).toContain(`data-edge="${from}->${to}"`);
    const failPlace =
      /<a\s+class="place ([^"]+)"[^>]*data-place="state:COMMITTING"[^>]*data-worst="([A-Z]+)"/.exec(diagram);
    expect(failPlace?.slice(1)).toEqual(['v-FAIL', 'FAIL']);
    expect(diagram).toMatch(/aria-label="1 cells faulted at target\.commit:after: 1 FAIL"/);
    // The failed cell carries the place the badge filters on.
    expect(page).toMatch(/id="cell-1"\s+data-verdict="FAIL"\s+data-place="state:COMMITTING"/);
  });

  it('tells a FAIL cell in sentences, and only a FAIL cell', () => {
    const first = page.slice(page.indexOf('id="cell-1"'), page.indexOf('id="cell-2"'));
    expect(first).toContain('was killed (SIGKILL) at target.commit:after.');
    expect(first).toContain('Decided by mutation-count');
    const passing = page.slice(page.indexOf('crash/d1/cas:PREPARED-&gt;COMMITTING:after#1</code>'));
    expect(passing.slice(0, passing.indexOf('</details>'))).not.toContain('What happened');
  });

  it('places each attempt on the cell’s clock in the swimlane, with the kill where it ended', () => {
    const first = page.slice(page.indexOf('id="cell-1"'), page.indexOf('id="cell-2"'));
    expect(first).toContain(
      'aria-label="swimlane: 2 attempts, 5 journal writes over 205 ms; target 2 mutations, 40/20 rows"',
    );
    expect(first).toMatch(/attempt 1 \(first\): \+0 ms for\s+20 ms, killed by SIGKILL/);
    expect(first).toMatch(/attempt 2 \(recovery\): \+25 ms for\s+180 ms/);
  });

  it('packs collapsed cells’ details once for the page, and renders them in place when not lazy', () => {
    const collapsed = evidence.cells.filter((cell) => cell.verdict === 'PASS' || cell.variant);
    const packed = unpackLazyBodies(raw);
    expect(packed.size).toBe(collapsed.length);
    expect(raw.match(/<details[^>]*data-lazy/g)?.length).toBe(collapsed.length);
    // An open cell (every FAIL) carries its body in place; a packed one only in the packed script.
    expect(raw.match(/class="cell-body"/g)?.length).toBe(evidence.cells.length - collapsed.length);
    for (const body of packed.values()) expect(body).toContain('class="cell-body"');
    const eager = renderHtmlReport(evidence, undefined, null, { lazy: false });
    expect(unpackLazyBodies(eager).size).toBe(0);
    expect(eager.match(/class="cell-body"/g)?.length).toBe(evidence.cells.length);
    // Inflated, the lazy page holds exactly the eager page's cells.
    const cells = (markup: string) =>
      markup
        .slice(markup.indexOf('<section id="cells">'))
        .replace(/\s+data-lazy/g, '')
        .replace(/\s+/g, ' ');
    expect(cells(page)).toBe(cells(eager));
  });
});
