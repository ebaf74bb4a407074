import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { PLUGIN_SOURCE_DATA, writeSource } from './plugin-source.ts';
import { refuseUnshowableVariants, variantsTheDataCannotShow } from './variant-data.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

describe('variants a route can catch', () => {
  it('a route whose cells carry no zoned instant refuses timezone-shifted with the reason, never offers it to survive', () => {
    expect(variantsTheDataCannotShow(['value-changed', 'timezone-shifted'], [])).toEqual([
      { variant: 'timezone-shifted', needs: 'zoned-instants' },
    ]);
    let refusal: unknown;
    try {
      refuseUnshowableVariants('sqlite-to-example', ['value-changed', 'timezone-shifted'], []);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({
      code: ERROR_CODES.INVALID_INPUT,
      fields: { field: 'target.unsafeVariants' },
    });
    expect((refusal as Error).message).toContain(
      "route sqlite-to-example offers unsafe variant(s) its cells' data cannot exercise: timezone-shifted (shown only by instants with a time zone, which its cells do not carry)",
    );
    expect((refusal as Error).message).not.toContain('value-changed');
  });

  it('the plug-in cells carry zoned instants: timezone-shifted is exercisable there, and the source holds them', () => {
    expect(() =>
      refuseUnshowableVariants('sqlite-to-example', ['timezone-shifted'], PLUGIN_SOURCE_DATA),
    ).not.toThrow();
    const dir = mkdtempSync(join(tmpdir(), 'dpone-variant-data-'));
    writeSource(join(dir, 'source.db'), { rows: 12, strategy: 'append', leaseTtlMs: 1000, seed: 7 });
    const db = new DatabaseSync(join(dir, 'source.db'));
    const at = db.prepare("SELECT at FROM events WHERE day = '2026-01-01' ORDER BY id").all() as {
      at: string | null;
    }[];
    db.close();
    const zones = new Set(at.map((row) => row.at?.match(/(Z|[+-]\d\d:\d\d)$/)?.[1] ?? null));
    // +05:30, -08:00, -05:00 (DST edges), Z, and NULL: what a zone-shifting connector changes.
    expect(zones).toEqual(new Set(['+05:30', '-08:00', '-05:00', 'Z', null]));
  });
});
