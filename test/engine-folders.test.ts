import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINES, MAY_NAME_ENGINES, SCANNED, mayNameEngines, namingFiles } from './engine-folders.ts';

const ROOT = join(import.meta.dirname, '..');

describe('one engine, one folder', () => {
  it.each(ENGINES)('no file outside its folders names %s, but the exceptions', (engine) => {
    // Production code and tests alike reach an engine through its registration
    // (src/cli/engine-table.ts: one line per engine; the harness loads its harness entry from the
    // folder that line names), never by name; the few exceptions say why (MAY_NAME_ENGINES).
    expect(namingFiles(ROOT, engine).filter((file) => !mayNameEngines(file))).toEqual([]);
  });

  it('every exception still names an engine (one that stops leaves the list)', () => {
    const named = new Set(ENGINES.flatMap((engine) => namingFiles(ROOT, engine)));
    for (const allowed of Object.keys(MAY_NAME_ENGINES))
      expect(
        [...named].some((file) => (allowed.endsWith('/') ? file.startsWith(allowed) : file === allowed)),
        allowed,
      ).toBe(true);
  });

  it('the shared kernel, the journal helpers, the ports and the testing module name no engine', () => {
    // One engine-neutral marker-fence kernel the engines hand their dialects to (statements, error
    // readings, quoting: connectors/<engine>/); helpers every engine's journal shares; interfaces;
    // the conformance suites. The shared unsafe-variant catalogue too: an engine's own flaws are in its folder.
    const shared = [
      'src/adapters/connectors/marker-fence/',
      'src/adapters/journal/',
      'src/ports/',
      'testing/',
    ];
    const naming = ENGINES.flatMap((engine) =>
      namingFiles(ROOT, engine)
        .filter((file) => shared.some((dir) => file.startsWith(dir)))
        .map((file) => `${engine}: ${file}`),
    );
    expect(naming).toEqual([]);
  });

  it('sees a file outside the folders and not one inside', () => {
    const sqlite = namingFiles(ROOT, 'sqlite');
    expect(sqlite).toContain('src/cli/engine-table.ts');
    expect(sqlite.some((file) => file.startsWith('connectors/sqlite/'))).toBe(false);
    // A moved engine's folder (connectors/clickhouse/, its harness/ parts included) is inside for it.
    const clickhouse = namingFiles(ROOT, 'clickhouse');
    expect(clickhouse.some((file) => file.startsWith('connectors/clickhouse/'))).toBe(false);
  });

  it('fails a test, a fixture or code outside the folder, another engine folder included', () => {
    // The rule can fail: a tree of its own, with an engine named inside its folder and outside it.
    const root = mkdtempSync(join(tmpdir(), 'engine-folders-'));
    try {
      for (const dir of SCANNED) mkdirSync(join(root, dir), { recursive: true });
      const files: Record<string, string> = {
        'connectors/duckdb/duckdb-target.ts': '// duckdb inside its folder',
        'connectors/duckdb/harness/parts.ts': '// DuckDB parts',
        'connectors/mariadb/run-duckdb.live.test.ts': '// a test in another engine folder',
        'harness/fixtures/some-fixture.ts': "export const route = 'duckdb-to-x';",
        'src/cli/route.test.ts': '// names DuckDB in a comment',
        'src/core/plain.ts': '// names no engine',
      };
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, file)), { recursive: true });
        writeFileSync(join(root, file), text);
      }
      const naming = namingFiles(root, 'duckdb');
      expect(naming).toEqual([
        'connectors/mariadb/run-duckdb.live.test.ts',
        'harness/fixtures/some-fixture.ts',
        'src/cli/route.test.ts',
      ]);
      expect(naming.filter((file) => !mayNameEngines(file))).toEqual(naming);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
