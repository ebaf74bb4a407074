import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RUNTIME_COMMANDS } from '../src/cli/main.ts';
import { CERTIFY_COMMANDS } from '../harness/cli/commands.ts';
import {
  PERFORMANCE_DOC,
  README_END,
  README_START,
  parsePerformanceDoc,
  renderPerformance,
  renderReadmePerformance,
  verdictWord,
} from '../bench/performance-doc.ts';

/** Issue 35 item 8: the README is a front door whose commands exist and whose links resolve. */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SCRIPTS = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts,
);
const COMMANDS = Object.keys({ ...RUNTIME_COMMANDS, ...CERTIFY_COMMANDS });

/** Command lines of the README's ```sh blocks, comments dropped. */
function shellLines(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) =>
    block[1]!
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== ''),
  );
}

function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*]/g, '')
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.*)$/gm)].map((match) => slug(match[1]!)));
}

describe('README front door', () => {
  const firstScreen = README.split('\n## Pipeline author')[0]!.split('\n');

  it('holds what it is, the two commands, what you get and the role map in at most 40 lines', () => {
    expect(firstScreen.length).toBeLessThanOrEqual(40);
    const text = firstScreen.join('\n');
    for (const role of ['pipeline author', 'operator', 'reviewer', 'connector author'])
      expect(text).toContain(`**${role}**`);
    expect(text).toContain('## What you get');
  });

  it('has the two commands exactly as .ci/run runs them', () => {
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    const lines = shellLines(firstScreen.join('\n'));
    expect(lines).toEqual(['npm install && npm run certify', 'npm test']);
    for (const line of lines) expect(ci).toMatch(new RegExp(`^${line.replace(/[&]/g, '\\$&')}$`, 'm'));
  });

  it('names only npm scripts that exist and dpone commands that exist', () => {
    for (const line of shellLines(README)) {
      for (const match of line.matchAll(/npm run (\S+)/g)) expect(SCRIPTS, line).toContain(match[1]);
      const dpone = /\bdpone (?:-- )?([a-z-]+(?: [a-z-]+){0,2})/.exec(
        line.replace('npm run dpone --', 'dpone'),
      );
      if (dpone)
        expect(
          COMMANDS.some((name) => dpone[1]!.startsWith(name)),
          line,
        ).toBe(true);
    }
  });

  it('links only to files and headings that exist (README and docs/)', () => {
    const files = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(target!) || target!.includes('|')) continue;
        const [path, anchor] = target!.split('#');
        const resolved = path ? normalize(join(ROOT, dirname(file), path)) : join(ROOT, file);
        if (!existsSync(resolved)) broken.push(`${file}: ${target}`);
        else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor))
          broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

/** Issue 37: the README's performance section is generated from the same bench run as docs/performance.md. */
describe('README performance section', () => {
  it('is what bench/performance-doc.ts renders from the run docs/performance.md holds', () => {
    const doc = readFileSync(PERFORMANCE_DOC, 'utf8');
    const inputs = parsePerformanceDoc(doc);
    // The page reads back to the run it was rendered from, so the section below is that run's.
    expect(renderPerformance(inputs)).toBe(doc);
    const start = README.indexOf(README_START);
    const end = README.indexOf(README_END);
    expect(start).toBeGreaterThan(0);
    expect(README.slice(start, end + README_END.length)).toBe(renderReadmePerformance(inputs));
  });

  it("gives each row's verdict in a word, never a missed or unmeasured row as met", () => {
    expect(verdictWord('met')).toBe('met');
    expect(verdictWord('missed: 10 round trips')).toBe('missed');
    expect(verdictWord('not measured: --quick skips it')).toBe('not measured');
    expect(verdictWord('')).toBe('not measured');
  });
});
