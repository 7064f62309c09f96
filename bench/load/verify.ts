// Replays the intended appends against the final files: an acknowledged line must be there exactly
// once, a refused one not at all, one whose response was lost at most once, and no other load line.
import { promises as fs } from "node:fs";
import path from "node:path";
import { APPEND_LINE, type AppendRecord } from "./client";

export interface VerifyResult {
  notes_checked: number;
  acknowledged: number;
  uncertain: number;
  refused: number;
  /** Acknowledged appends missing from their note. */
  lost: number;
  /** Load lines present more than once. */
  doubled: number;
  /** Load lines present although refused or never intended. */
  phantom: number;
  /** Uncertain appends (transport error) that did land. */
  uncertain_present: number;
  examples: string[];
}

const MAX_EXAMPLES = 10;

export async function verifyAppends(vaultDir: string, appends: readonly AppendRecord[]): Promise<VerifyResult> {
  const byNote = new Map<string, AppendRecord[]>();
  for (const record of appends) {
    const list = byNote.get(record.note) ?? [];
    list.push(record);
    byNote.set(record.note, list);
  }
  const result: VerifyResult = { notes_checked: 0, acknowledged: 0, uncertain: 0, refused: 0, lost: 0, doubled: 0, phantom: 0, uncertain_present: 0, examples: [] };
  const example = (text: string): void => {
    if (result.examples.length < MAX_EXAMPLES) result.examples.push(text);
  };
  for (const [note, records] of byNote) {
    const text = await fs.readFile(path.join(vaultDir, note), "utf8");
    result.notes_checked++;
    const counts = new Map<string, number>();
    for (const raw of text.split("\n")) {
      const line = raw.replace(/\r$/, "");
      if (APPEND_LINE.test(line)) counts.set(line, (counts.get(line) ?? 0) + 1);
    }
    const intended = new Set<string>();
    for (const record of records) {
      intended.add(record.line);
      const present = counts.get(record.line) ?? 0;
      result[record.outcome]++;
      if (present > 1) {
        result.doubled++;
        example(`${note}: "${record.line}" (${record.outcome}) appears ${present} times`);
      }
      if (record.outcome === "acknowledged" && present === 0) {
        result.lost++;
        example(`${note}: acknowledged "${record.line}" is missing`);
      } else if (record.outcome === "refused" && present > 0) {
        result.phantom++;
        example(`${note}: refused "${record.line}" is present`);
      } else if (record.outcome === "uncertain" && present > 0) {
        result.uncertain_present++;
      }
    }
    for (const line of counts.keys()) {
      if (!intended.has(line)) {
        result.phantom++;
        example(`${note}: "${line}" was never appended to this note`);
      }
    }
  }
  return result;
}
