// Every write shows its change as a unified diff with three lines of context (SPEC §8 step 7).
import { createTwoFilesPatch, diffLines } from "diff";

export function unifiedDiff(path: string, before: string | null, after: string | null): string {
  if (before === after) return "";
  const patch = createTwoFilesPatch(
    before === null ? "/dev/null" : `a/${path}`,
    after === null ? "/dev/null" : `b/${path}`,
    before ?? "",
    after ?? "",
    undefined,
    undefined,
    { context: 3 },
  );
  // The "Index:"/"====" preamble says nothing a reader needs.
  return patch.replace(/^={10,}\n/m, "");
}

/** The lines `after` adds to `before`, numbered as in `after` (1-based). */
export function addedLines(before: string, after: string): Array<{ line: number; text: string }> {
  const added: Array<{ line: number; text: string }> = [];
  let line = 1;
  for (const part of diffLines(before, after)) {
    const lines = part.value.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    if (part.added) for (const text of lines) added.push({ line: line++, text });
    else if (!part.removed) line += lines.length;
  }
  return added;
}
