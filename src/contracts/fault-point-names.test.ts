import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { casPoint, faultPoint, isCasPoint, isFaultPointName } from './fault-point-names.ts';

const ROOT = resolve(import.meta.dirname, '../..');

const SHAPE =
  /(?:cas:[A-Z_]+->[A-Z_]+|(?:recovery\.apply:)?(?:journal|lease|source|fence|target|state)\.[a-z.]+):(?:before|after|sent|begin)/;

/**
 * Strings shaped like a fault point: quoted in every .ts file of these folders (tests included, this
 * one aside: it plants misspelt names), and any in the scenario YAML files.
 */
function pointLiterals(dirs: readonly string[]): { file: string; point: string }[] {
  return dirs.flatMap((dir) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && /\.(ts|ya?ml)$/.test(entry.name))
      .filter((entry) => entry.name !== 'fault-point-names.test.ts')
      .flatMap((entry) => {
        const shape = entry.name.endsWith('.ts')
          ? new RegExp(`'(${SHAPE.source})'`, 'g')
          : new RegExp(`(?<![\\w.:])(${SHAPE.source})(?![\\w.:])`, 'g');
        const file = relative(ROOT, join(entry.parentPath, entry.name));
        return [...readFileSync(join(ROOT, file), 'utf8').matchAll(shape)].map((m) => ({
          file,
          point: m[1]!,
        }));
      }),
  );
}

describe('fault-point catalogue', () => {
  it('names a compare-and-set point from its states', () => {
    expect(casPoint('PREPARED', 'COMMITTING', 'after')).toBe('cas:PREPARED->COMMITTING:after');
    expect(isCasPoint('cas:PREPARED->COMMITTING:after')).toBe(true);
    expect(isCasPoint('target.commit:before')).toBe(false);
  });

  it('accepts the catalogue and refuses a misspelt or unknown name', () => {
    expect(isFaultPointName(faultPoint('target.commit:sent'))).toBe(true);
    expect(isFaultPointName('recovery.apply:fence.raise:after')).toBe(true);
    expect(isFaultPointName('stmt:mutate.3:before')).toBe(true);
    expect(isFaultPointName('cas:COMMITTING->TARGET_COMMITTED:before')).toBe(true);
    expect(isFaultPointName('target.comit:before')).toBe(false);
    expect(isFaultPointName('cas:COMMITTING->DONE:before')).toBe(false);
    expect(isFaultPointName('target.commit:during')).toBe(false);
    // @ts-expect-error a misspelt point does not type-check
    faultPoint('target.comit:before');
  });

  it('holds every point name written as a string in the runtime, the harness, scenarios and examples', () => {
    const found = pointLiterals(['src', 'connectors', 'harness', 'examples', 'bench', 'scenarios']);
    expect(found.length).toBeGreaterThan(200);
    expect(found.filter(({ point }) => !isFaultPointName(point))).toEqual([]);
  });
});
