import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isDponeError } from '../../src/contracts/errors.ts';
import { SCHEMA_FILE, scenarioJsonSchema } from './generate-schema.ts';
import { loadScenarios, parseScenario } from './scenario-loader.ts';

function problemOf(text: string): { message: string; location?: string; field?: string; code: string } {
  try {
    parseScenario(text, 'bad.yaml');
  } catch (error) {
    if (!isDponeError(error)) throw error;
    return { message: error.message, code: error.code, ...error.fields };
  }
  throw new Error('expected the scenario to be rejected');
}

describe('scenario schema', () => {
  it('the committed schemas/scenario.v1.json equals the one generated from the TypeScript definition', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(scenarioJsonSchema());
  });

  it('every shipped scenario file (both suites) loads and points editors at the schema', async () => {
    const dir = fileURLToPath(new URL('../../scenarios/', import.meta.url));
    const yaml = (folder: string) =>
      readdirSync(folder)
        .filter((name) => name.endsWith('.yaml'))
        .map((name) => join(folder, name));
    const files = [...yaml(dir), ...yaml(join(dir, 'airflow'))];
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const file of files) {
      const schema = relative(dirname(file), SCHEMA_FILE);
      expect(readFileSync(file, 'utf8').split('\n')[0]).toBe(`# yaml-language-server: $schema=${schema}`);
    }
    const loaded = await loadScenarios(files);
    expect(loaded.map((l) => l.scenario.name).sort()).toEqual(
      expect.arrayContaining(['airflow-live', 'airflow-retry', 'crash', 'intent-conflict', 'pause', 'race']),
    );
  });
});

describe('scenario loader errors', () => {
  it('accepts a well-formed scenario and keeps its values', () => {
    const scenario = parseScenario('name: ok\nseed: 7\nfaults:\n  - kind: race\n    workers: 8\n', 'ok.yaml');
    expect(scenario).toEqual({ name: 'ok', seed: 7, faults: [{ kind: 'race', workers: 8 }] });
  });

  it('rejects an unknown top-level key with its line, column and key path', () => {
    const problem = problemOf('name: x\nfaults:\n  - kind: crash\nretries: 3\n');
    expect(problem.code).toBe('DPONE_INVALID_INPUT');
    expect(problem.location).toBe('bad.yaml:4:1');
    expect(problem.field).toBe('retries');
    expect(problem.message).toContain('bad.yaml:4:1: retries: unknown key');
  });

  it('rejects an unknown key inside a fault, naming the list index', () => {
    const problem = problemOf('name: x\nfaults:\n  - kind: crash\n  - kind: race\n    wokers: 8\n');
    expect(problem.location).toBe('bad.yaml:5:5');
    expect(problem.field).toBe('faults[1].wokers');
  });

  it('locates a wrong type and an out-of-range value', () => {
    const problem = problemOf('name: x\nfaults:\n  - kind: race\n    workers: many\nworkload:\n  rows: -1\n');
    expect(problem.message).toContain('bad.yaml:4:14: faults[0].workers: must be an integer');
    expect(problem.message).toContain('bad.yaml:6:9: workload.rows: must be >= 0');
  });

  it('rejects an unknown fault kind and a missing required key', () => {
    expect(problemOf('name: x\nfaults:\n  - kind: meteor\n').field).toBe('faults[0].kind');
    expect(problemOf('faults:\n  - kind: crash\n').field).toBe('name');
    expect(problemOf('name: x\nfaults:\n  - kind: race\n    worker: 2\n').field).toMatch(/^faults\[0\]/);
  });

  it('rejects a key that needs another the fault lacks, at the fault', () => {
    const problem = problemOf('name: x\nfaults:\n  - kind: pause\n    hold_second_at: lease.acquire:after\n');
    expect(problem.location).toBe('bad.yaml:3:5');
    expect(problem.field).toBe('faults[0].points');
    expect(problem.message).toContain('faults[0].points: is required with hold_second_at');
  });

  it('locates a YAML syntax error', () => {
    const problem = problemOf('name: x\nfaults: [\n');
    expect(problem.location).toMatch(/^bad\.yaml:\d+:\d+$/);
    expect(problem.field).toBe('(yaml)');
  });
});
