/** Edit distance (insert, delete, substitute one character), for "did you mean". */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The known name closest to what was typed, when it is close enough to be a typo (at most a third
 * of its length apart, at least 1 and at most 3 edits) or the typed word starts it; else null.
 */
export function nearestName(typed: string, known: readonly string[]): string | null {
  let best: { name: string; cost: number } | null = null;
  for (const name of known) {
    const cost = name.startsWith(typed) && typed.length >= 3 ? 0.5 : distance(typed, name);
    if (best === null || cost < best.cost) best = { name, cost };
  }
  if (best === null) return null;
  const limit = Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  return best.cost <= limit ? best.name : null;
}
