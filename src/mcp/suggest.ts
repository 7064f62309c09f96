// "Did you mean …" for a mistyped tool name.

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function closeness(wanted: string, candidate: string): number {
  if (candidate.includes(wanted) || wanted.includes(candidate)) return 0;
  return editDistance(wanted, candidate);
}

/** Up to `limit` candidates near `wanted`, nearest first; none when nothing is plausibly meant. */
export function closeMatches(wanted: string, candidates: readonly string[], limit = 3): string[] {
  const needle = wanted.toLowerCase();
  if (needle === "") return [];
  const allowed = Math.max(2, Math.floor(needle.length / 3));
  return candidates
    .map((candidate) => ({ candidate, distance: closeness(needle, candidate.toLowerCase()) }))
    .filter((entry) => entry.distance <= allowed)
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map((entry) => entry.candidate);
}
