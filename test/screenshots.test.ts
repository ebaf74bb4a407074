import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { suiteDigest } from '../src/cli/shipped-suites.ts';
import { IMAGES, MANIFEST, staleFields } from '../harness/reporters/generate-screenshots.ts';
import type { ScreenshotManifest } from '../harness/reporters/generate-screenshots.ts';

/**
 * Issue 35 item 8: the docs' screenshots come from a real default-suite run (`npm run
 * screenshots`), and go stale loudly: when the shipped default suite changes, or when a caption no
 * longer says the numbers of the run the pictures show.
 */
const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as ScreenshotManifest;
const CERTIFY_DOC = readFileSync(fileURLToPath(new URL('../docs/certify.md', import.meta.url)), 'utf8');

describe('documentation screenshots', () => {
  it('show a run of the default suite shipped now (else: npm run screenshots)', () => {
    expect(manifest.generated_by).toBe('npm run screenshots');
    expect(manifest.suite_digest).toBe(suiteDigest('default').digest);
    for (const file of ['certify-report.png', 'certify-report-cell.png', 'certify-report-duplicate.png'])
      expect(existsSync(join(IMAGES, file)), file).toBe(true);
  });

  it('are captioned with the numbers of the run they show', () => {
    const caption = /!\[([^\]]*)\]\(images\/certify-report\.png\)/.exec(CERTIFY_DOC)?.[1];
    expect(caption).toBe(
      `the report of the default suite on ${manifest.route}, seed ${manifest.seed}: ` +
        `${manifest.route_cells} route cells, ${manifest.route_cells_pass} PASS, ` +
        `${manifest.variants_killed}/${manifest.variants_offered} unsafe variants killed`,
    );
  });

  // CI runs `--check` on its own default-suite run: a planner change that adds cells to the same
  // scenario files (the suite digest does not move) still makes the pictures stale, loudly.
  it('are stale for a run with other numbers, naming each field that differs', () => {
    expect(staleFields(manifest, { ...manifest })).toEqual([]);
    const moreCells = { ...manifest, route_cells: manifest.route_cells + 9 };
    expect(staleFields(manifest, moreCells)).toEqual([
      `route_cells: screenshots show ${manifest.route_cells}, the run has ${manifest.route_cells + 9}`,
    ]);
  });
});
