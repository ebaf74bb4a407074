/**
 * The text a cell's source rows carry in their `label` column: values a connector could change
 * on the way without any error, so row parity (per natural key) shows it. NULL next to an empty
 * string, one word in Unicode NFC and the same word in NFD, emoji (a flag is two code points, a
 * family a ZWJ sequence), right-to-left text, quote characters and a long value. The rest carry a
 * seeded `item-N`. Chosen by the row id, so every partition of 16 rows or more (ids 1-15 odd) holds each of them.
 */
export const CELL_TEXTS: readonly (string | null)[] = [
  null,
  '',
  'Cafe\u0301 cre\u0300me',
  'Caf\u00e9 cr\u00e8me',
  '\u{1F600} \u{1F1FA}\u{1F1F3} \u{1F468}\u200D\u{1F469}\u200D\u{1F467}',
  '\u05E9\u05DC\u05D5\u05DD \u0645\u0631\u062D\u0628\u0627',
  `it's "quoted" \\ back`,
  'long:'.padEnd(4096, 'x'),
];

/** The label of source row `id`: one of CELL_TEXTS in turn, every other row a seeded `item-N`. */
export function cellLabel(id: number, itemNumber: number): string | null {
  return id % 2 === 1 ? CELL_TEXTS[((id - 1) / 2) % CELL_TEXTS.length]! : `item-${itemNumber}`;
}
