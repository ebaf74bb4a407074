/**
 * Characters that act on a terminal or reorder what a reader sees instead of being text: C0
 * controls (ESC starts escape sequences), DEL, C1 controls (U+009B is a one-character CSI), the
 * bidirectional embeddings, overrides and isolates ("Trojan Source"), the invisible direction
 * marks, and the line and paragraph separators. Operator text and identity values never need them:
 * input refuses them, and output escapes them wherever text from a journal or a file is printed.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const UNSAFE_ALL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `U+001B` of the first unsafe character, or null when the text is safe to print. */
export function firstUnsafeCharacter(text: string): string | null {
  const match = UNSAFE.exec(text);
  return match ? `U+${match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : null;
}

/** The text with every unsafe character written as a visible `\u001b` escape. */
export function escapeUnsafe(text: string): string {
  return text.replace(UNSAFE_ALL, (char) => `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

/**
 * JSON for a terminal or a log: JSON.stringify already escapes C0 controls, but not C1 or the
 * bidirectional controls; those are written as `\u…` escapes too (still the same JSON value).
 */
export function safeJson(value: unknown): string {
  return JSON.stringify(value).replace(
    UNSAFE_ALL,
    (char) => `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`,
  );
}
