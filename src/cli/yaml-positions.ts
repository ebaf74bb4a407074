import type { Document, LineCounter, Node } from 'yaml';
import { isMap, isPair, isScalar, isSeq } from 'yaml';

/**
 * Finds where a key path (`identity.canonical_interval.start`, `data.columns[2]`) sits in a parsed
 * YAML document, so an error about a field can say `file:line:column`. A path that is only partly
 * present (a missing key) resolves to the deepest part that exists: the map the key is missing from.
 */
export class YamlPositions {
  readonly #doc: Document.Parsed;
  readonly #lines: LineCounter;
  readonly #file: string;

  constructor(doc: Document.Parsed, lines: LineCounter, file: string) {
    this.#doc = doc;
    this.#lines = lines;
    this.#file = file;
  }

  /** `file:line:column` (both 1-based) of the field, or of its deepest existing ancestor. */
  locate(field: string): string {
    return this.at(this.#offset(segments(field)));
  }

  /** `file:line:column` of a character offset in the source. */
  at(offset: number): string {
    const { line, col } = this.#lines.linePos(offset);
    return `${this.#file}:${line}:${col}`;
  }

  #offset(path: readonly (string | number)[]): number {
    let node: unknown = this.#doc.contents;
    let offset = rangeStart(node) ?? 0;
    let rest = path;
    while (rest.length > 0) {
      const [head, ...tail] = rest;
      if (isSeq(node) && typeof head === 'number') {
        const item: unknown = node.items[head];
        if (item === undefined) return offset;
        node = item;
        offset = rangeStart(item) ?? offset;
        rest = tail;
        continue;
      }
      if (!isMap(node)) return offset;
      // A key may itself contain dots: try the longest run of segments first.
      const match = longestKey(node.items, rest);
      if (!match) return offset;
      offset = rangeStart(match.pair.key) ?? offset;
      node = match.pair.value;
      rest = rest.slice(match.used);
    }
    return offset;
  }
}

function segments(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const part of field.split('.')) {
    const [name, ...indices] = part.split('[');
    if (name) out.push(name);
    for (const index of indices) out.push(Number(index.replace(']', '')));
  }
  return out;
}

function longestKey(
  items: readonly unknown[],
  path: readonly (string | number)[],
): { pair: { key: unknown; value: unknown }; used: number } | null {
  for (let used = path.length; used >= 1; used--) {
    const name = path.slice(0, used).join('.');
    for (const pair of items) {
      if (isPair(pair) && isScalar(pair.key) && String(pair.key.value) === name) {
        return { pair, used };
      }
    }
  }
  return null;
}

function rangeStart(node: unknown): number | undefined {
  return (node as Node | null | undefined)?.range?.[0];
}
