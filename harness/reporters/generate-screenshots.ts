/**
 * The documentation's screenshots, taken from a real run so they cannot go stale silently:
 *
 *   npm run screenshots                      # runs the default suite, then shoots its report
 *   npm run screenshots -- --run reports/X   # shoots an existing default-suite run's report
 *   npm run screenshots -- --check reports/X # exit 1 if the pictures show other numbers than run X
 *
 * It writes docs/images/certify-report*.png and docs/images/screenshots.json: the run's numbers
 * and the default suite's digest. test/screenshots.test.ts fails when the shipped default suite no
 * longer has that digest, or when the docs' captions no longer say the manifest's numbers.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { suiteDigest } from '../../src/cli/shipped-suites.ts';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import { routeCells } from './cell-summary.ts';
import type { Locator, Page } from 'playwright-core';
import { launchHeadlessChromium } from './headless-chromium.ts';
import { variantViews } from './variant-states.ts';

export const IMAGES = fileURLToPath(new URL('../../docs/images/', import.meta.url));
export const MANIFEST = join(IMAGES, 'screenshots.json');

/** What the screenshots show, in numbers a test can hold the docs to. */
export interface ScreenshotManifest {
  readonly generated_by: 'npm run screenshots';
  readonly suite: 'default';
  readonly suite_digest: string;
  readonly route: string;
  readonly seed: number;
  readonly route_cells: number;
  readonly route_cells_pass: number;
  readonly variants_killed: number;
  readonly variants_offered: number;
}

export function manifestOf(evidence: Evidence): ScreenshotManifest {
  const suite = (evidence.environment as { suite?: { name?: string; digest?: string } | null }).suite;
  if (suite?.name !== 'default' || !suite.digest)
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      'screenshots: the run is not a default-suite run (run it with --suite default)',
    );
  const cells = routeCells(evidence);
  const views = variantViews(evidence);
  return {
    generated_by: 'npm run screenshots',
    suite: 'default',
    suite_digest: suite.digest,
    route: evidence.route,
    seed: evidence.seed,
    route_cells: cells.length,
    route_cells_pass: cells.filter((cell) => cell.verdict === 'PASS').length,
    variants_killed: views.filter((view) => view.state === 'killed').length,
    variants_offered: views.length,
  };
}

async function defaultSuiteRun(): Promise<string> {
  const out = await mkdtemp(join(tmpdir(), 'dpone-screenshots-'));
  const dpone = fileURLToPath(new URL('../../bin/dpone.js', import.meta.url));
  await execa(process.execPath, [dpone, 'certify', 'run', '--suite', 'default', '--out', out], {
    stdio: 'inherit',
    reject: false,
  });
  return out;
}

/**
 * Opens a cell and shoots it alone: the viewport is made as tall as the cell and the cell scrolled
 * to its top (an element or full-page screenshot of a 1,000-cell page times out).
 */
async function shootCell(page: Page, cell: Locator, file: string): Promise<void> {
  await cell.locator('summary').click();
  await cell.locator('.timeline').waitFor();
  const height = Math.ceil((await cell.evaluate((node) => node.getBoundingClientRect().height)) + 2);
  await page.setViewportSize({ width: 1440, height });
  await cell.evaluate((node) => node.scrollIntoView({ block: 'start' }));
  const box = await cell.boundingBox();
  if (!box)
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      `screenshots: the cell for ${file} is not on the page`,
    );
  await page.screenshot({ path: join(IMAGES, file), clip: box });
  await page.setViewportSize({ width: 1440, height: 900 });
}

async function shoot(report: string): Promise<void> {
  const browser = await launchHeadlessChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(pathToFileURL(report).href);
    await page.screenshot({ path: join(IMAGES, 'certify-report.png') });
    // A route cell killed by SIGKILL, opened: its swimlane and timeline.
    const killed = page.locator('details.cell.v-PASS[data-verdict="PASS"]', { hasText: 'crash/d1/' }).first();
    await shootCell(page, killed, 'certify-report-cell.png');
    // An unsafe variant caught by the duplicate check, opened.
    const caught = page
      .locator('details.cell[data-verdict="VARIANT"].v-FAIL', { hasText: '@no-fence' })
      .first();
    await shootCell(page, caught, 'certify-report-duplicate.png');
  } finally {
    await browser.close();
  }
}

/**
 * The fields in which a default-suite run differs from the manifest the screenshots were taken
 * from: empty when the pictures still show what the suite plans and finds. The suite digest binds
 * the scenario files only; this binds the planner too (a planner change that adds cells to the
 * same files is caught by CI's `--check` of its own default-suite run).
 */
export function staleFields(shipped: ScreenshotManifest, run: ScreenshotManifest): string[] {
  return (Object.keys(run) as (keyof ScreenshotManifest)[])
    .filter((key) => shipped[key] !== run[key])
    .map((key) => `${key}: screenshots show ${String(shipped[key])}, the run has ${String(run[key])}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { run: { type: 'string' }, check: { type: 'string' } } });
  if (values.check !== undefined) {
    const run = manifestOf(
      JSON.parse(await readFile(join(values.check, 'evidence.json'), 'utf8')) as Evidence,
    );
    const shipped = JSON.parse(await readFile(MANIFEST, 'utf8')) as ScreenshotManifest;
    const stale = staleFields(shipped, run);
    if (stale.length > 0) {
      process.stderr.write(
        `screenshots: docs/images/ no longer shows what the default suite runs (${stale.join('; ')}); regenerate them with npm run screenshots\n`,
      );
      process.exit(1);
    }
    process.stdout.write(`screenshots: docs/images/ shows this default-suite run's numbers\n`);
    process.exit(0);
  }
  const dir = values.run ?? (await defaultSuiteRun());
  const evidence = JSON.parse(await readFile(join(dir, 'evidence.json'), 'utf8')) as Evidence;
  const manifest = manifestOf(evidence);
  if (manifest.suite_digest !== suiteDigest('default').digest)
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      'screenshots: the run used other scenario files than the shipped default suite',
    );
  await shoot(join(dir, 'index.html'));
  await writeFile(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  process.stdout.write(`screenshots of ${dir}/index.html written to ${IMAGES}\n`);
}
