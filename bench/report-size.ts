/**
 * The HTML report's size and render time for one evidence (a full suite: 1,000–2,500 cells), lazy
 * (collapsed cells' details packed once, gzip + base64, the default) against eager (every cell's details in
 * place), both measured in the same run in the same Chromium. A benchmark, not a test: it prints
 * figures and ratios and decides nothing.
 *
 *   node bench/report-size.ts --evidence /path/to/evidence.json [--repeat 3]
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { CHROMIUM, launchHeadlessChromium } from '../harness/reporters/headless-chromium.ts';
import type { Evidence } from '../harness/evidence/evidence-types.ts';
import { renderHtmlReport } from '../harness/reporters/html-page.ts';
import { median, round } from './stats.ts';

interface Measured {
  readonly bytes: number;
  readonly render_ms: number;
  readonly dom_nodes: number;
}

async function measure(file: string, repeat: number): Promise<Omit<Measured, 'bytes'>> {
  const browser = await launchHeadlessChromium();
  try {
    const times: number[] = [];
    let nodes = 0;
    for (let i = 0; i < repeat; i++) {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      const started = performance.now();
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      // Force style and layout of the whole page, then wait one frame: the page is on screen.
      nodes = await page.evaluate(
        () =>
          new Promise<number>((done) => {
            void document.body.offsetHeight;
            requestAnimationFrame(() => done(document.getElementsByTagName('*').length));
          }),
      );
      times.push(performance.now() - started);
      await page.close();
    }
    return { render_ms: round(median(times)), dom_nodes: nodes };
  } finally {
    await browser.close();
  }
}

const { values } = parseArgs({
  options: { evidence: { type: 'string' }, repeat: { type: 'string', default: '3' } },
});
if (!values.evidence) throw new Error('report-size: --evidence <evidence.json> is required');
if (!existsSync(CHROMIUM))
  throw new Error(`report-size: ${CHROMIUM} not found (apt-get install -y chromium)`);
const evidence = JSON.parse(await readFile(values.evidence, 'utf8')) as Evidence;
const repeat = Math.max(1, Number(values.repeat));
const dir = await mkdtemp(join(tmpdir(), 'dpone-report-size-'));
try {
  const results: Record<'eager' | 'lazy', Measured> = {} as Record<'eager' | 'lazy', Measured>;
  for (const mode of ['eager', 'lazy'] as const) {
    const file = join(dir, `${mode}.html`);
    const markup = renderHtmlReport(evidence, undefined, null, { lazy: mode === 'lazy' });
    await writeFile(file, markup);
    results[mode] = { bytes: Buffer.byteLength(markup), ...(await measure(file, repeat)) };
  }
  const { eager, lazy } = results;
  console.log(
    `report size and render time, ${evidence.cells.length} cells (${values.evidence}), median of ${repeat}`,
  );
  console.log('mode   bytes        render ms   DOM nodes');
  for (const [mode, m] of Object.entries(results))
    console.log(
      `${mode.padEnd(6)} ${String(m.bytes).padStart(11)}  ${String(m.render_ms).padStart(9)}   ${m.dom_nodes}`,
    );
  console.log(
    `lazy/eager: bytes ${round(lazy.bytes / eager.bytes)}, render time ${round(lazy.render_ms / eager.render_ms)}, DOM nodes ${round(lazy.dom_nodes / eager.dom_nodes)}`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
