import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINES, isTestFile, mayNameEngines, namingFiles } from './engine-folders.ts';

const ROOT = join(import.meta.dirname, '..');
const KNOWN = JSON.parse(
  readFileSync(join(import.meta.dirname, 'engine-names.known.json'), 'utf8'),
) as Record<string, string[]>;

describe('one engine, one folder', () => {
  it.each(ENGINES)('no new file outside its folders names %s (the known list only shrinks)', (engine) => {
    // A file that moved into the engine's folder or stopped naming it may leave the list
    // (`node test/engine-folders.ts` prints today's); a new one outside is a file in the wrong place.
    const known = new Set(KNOWN[engine] ?? []);
    expect(namingFiles(ROOT, engine).filter((file) => !known.has(file))).toEqual([]);
  });

  it.each(ENGINES)('no production file outside its folder names %s, but the registration', (engine) => {
    // Production code reaches an engine through its registration (src/cli/engine-table.ts: one line
    // per engine; the harness loads its harness entry from the folder that line names), never by
    // name; the few exceptions say why (engine-folders.ts MAY_NAME_ENGINES). Tests still may, on the
    // shrinking known list above.
    expect(namingFiles(ROOT, engine).filter((file) => !isTestFile(file) && !mayNameEngines(file))).toEqual(
      [],
    );
  });

  it('names DuckDB nowhere, and every engine has a known list', () => {
    expect(Object.keys(KNOWN).sort()).toEqual([...ENGINES].sort());
    expect(KNOWN.duckdb).toEqual([]);
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
    // A moved engine's folder (connectors/clickhouse/, its harness/ parts included) is inside for it,
    // and scanned for the others: its live CLI test of a PostgreSQL source into ClickHouse names
    // PostgreSQL, the route's other engine (its tests on the embedded source reach it by the registry).
    const clickhouse = namingFiles(ROOT, 'clickhouse');
    expect(clickhouse.some((file) => file.startsWith('connectors/clickhouse/'))).toBe(false);
    expect(namingFiles(ROOT, 'postgres')).toContain(
      'connectors/clickhouse/run-postgres-clickhouse.live.test.ts',
    );
  });
});
