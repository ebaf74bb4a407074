import { gunzipSync, gzipSync } from 'node:zlib';
import type { SafeHtml } from './html-escape.ts';
import { html } from './html-escape.ts';

/**
 * The details of the collapsed cells, packed once for the whole page: a JSON object from cell
 * anchor to the body's markup, gzip-compressed and base64-encoded inside one inert
 * `<script type="application/gzip">` the browser never executes. The page's script inflates it
 * (`DecompressionStream`, no network: the CSP allows none) when a cell is first opened.
 *
 * Why: a timeline and a swimlane per cell were most of a full suite's bytes (2.7 of 5.2 MB),
 * nearly the same markup a thousand times over, which gzip folds to a few per cent. An inert
 * `<template>` per cell saved layout but neither bytes nor parse time.
 *
 * The packed markup is the same escaped markup the cell would carry in place, so it holds nothing
 * the page did not hold before; `unpackLazyBodies` opens it for tests (the leak check reads
 * every body) and benchmarks.
 */
export const LAZY_BODIES_ID = 'cell-bodies';

export function packLazyBodies(bodies: ReadonlyMap<string, SafeHtml>): SafeHtml | null {
  if (bodies.size === 0) return null;
  const json = JSON.stringify(Object.fromEntries([...bodies].map(([id, body]) => [id, body.markup])));
  const packed = gzipSync(json, { level: 9 }).toString('base64');
  return html`<script type="application/gzip" id="${LAZY_BODIES_ID}" data-encoding="base64">
    ${packed}
  </script>`;
}

const PACKED = new RegExp(
  `<script type="application/gzip" id="${LAZY_BODIES_ID}" data-encoding="base64">\\s*([A-Za-z0-9+/=]*)\\s*</script>`,
);

/** The packed bodies of a rendered page, by cell anchor (empty when nothing was packed). */
export function unpackLazyBodies(page: string): Map<string, string> {
  const packed = PACKED.exec(page)?.[1];
  if (!packed) return new Map();
  const json = gunzipSync(Buffer.from(packed, 'base64')).toString('utf8');
  return new Map(Object.entries(JSON.parse(json) as Record<string, string>));
}

/** The page with every packed body back inside its cell: what a reader sees with all cells open. */
export function inflatePage(page: string): string {
  let inflated = page;
  for (const [id, body] of unpackLazyBodies(page)) {
    const at = inflated.indexOf(`id="${id}"`);
    const end = at < 0 ? -1 : inflated.indexOf('</details>', at);
    if (end >= 0) inflated = inflated.slice(0, end) + body + inflated.slice(end);
  }
  return inflated.replace(PACKED, '');
}
