/**
 * Escaping for the HTML report. Evidence is data from processes under test and from files anyone
 * can edit, so every interpolated value is escaped unless it is markup this module built.
 */

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (char) => ENTITIES[char]!);
}

/** Markup produced by the `html` tag; the only thing interpolated without escaping. */
export class SafeHtml {
  readonly markup: string;
  constructor(markup: string) {
    this.markup = markup;
  }
  toString(): string {
    return this.markup;
  }
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * A template's literal part without its source indentation: a line break and the spaces after it
 * become one line break (the same whitespace to HTML outside <pre>, and no literal part holds a
 * <pre>'s content). On a 1,000-cell report the indentation alone was a third of the bytes.
 */
const literals = new WeakMap<TemplateStringsArray, readonly string[]>();
function compact(strings: TemplateStringsArray): readonly string[] {
  let parts = literals.get(strings);
  if (!parts) {
    parts = strings.map((part) => part.replace(/\n[ \t]+/g, '\n'));
    literals.set(strings, parts);
  }
  return parts;
}

/** Tagged template: literal parts are trusted, every `${value}` is escaped (arrays are joined). */
export function html(strings: TemplateStringsArray, ...values: readonly unknown[]): SafeHtml {
  const parts = compact(strings);
  let markup = parts[0] ?? '';
  values.forEach((value, index) => {
    markup += render(value) + (parts[index + 1] ?? '');
  });
  return new SafeHtml(markup);
}

/** Trusted static text (the stylesheet and script constants of this folder); never evidence. */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** A CSS class for a verdict; an unexpected value (a hand-edited file) gets the "unknown" look. */
export function verdictClass(verdict: string): string {
  return ['PASS', 'FAIL', 'UNKNOWN', 'UNVERIFIED'].includes(verdict) ? `v-${verdict}` : 'v-UNKNOWN';
}
