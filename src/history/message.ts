// Commit messages: a one-line subject `tool(mode): path` of at most 140 characters, the reason as a
// paragraph, and `Via:` / `User:` trailers, so `git log` read by a person and note_history read by an
// agent say the same thing.
import type { HistoryMeta } from "../core/ports";

export const SUBJECT_MAX = 140;
const REASON_MAX = 500;
const TRAILER_MAX = 200;
const TRAILER_KEYS = ["Via", "User"] as const;

function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, " ").replace(/ {2,}/g, " ").trim();
}

function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

export function commitMessage(subject: string, meta: HistoryMeta): string {
  const parts = [cut(oneLine(subject), SUBJECT_MAX)];
  const reason = meta.reason === undefined ? "" : oneLine(meta.reason);
  if (reason !== "") parts.push(cut(reason, REASON_MAX));
  const trailers: string[] = [];
  const via = meta.via === undefined ? "" : oneLine(meta.via);
  const user = meta.user === undefined ? "" : oneLine(meta.user);
  if (via !== "") trailers.push(`Via: ${cut(via, TRAILER_MAX)}`);
  if (user !== "") trailers.push(`User: ${cut(user, TRAILER_MAX)}`);
  if (trailers.length > 0) parts.push(trailers.join("\n"));
  return `${parts.join("\n\n")}\n`;
}

export interface ParsedMessage {
  /** Subject and reason, trailers removed. */
  text: string;
  via?: string;
  user?: string;
}

export function parseMessage(message: string): ParsedMessage {
  const paragraphs = message.replace(/\r\n/g, "\n").trim().split(/\n{2,}/);
  const parsed: ParsedMessage = { text: "" };
  const last = paragraphs[paragraphs.length - 1];
  if (paragraphs.length > 1 && last !== undefined) {
    const lines = last.split("\n");
    const fields = lines.map((line) => /^([A-Za-z-]+): (.*)$/.exec(line));
    if (fields.every((match) => match !== null && (TRAILER_KEYS as readonly string[]).includes(match[1]!))) {
      for (const match of fields) {
        if (match![1] === "Via") parsed.via = match![2]!;
        else parsed.user = match![2]!;
      }
      paragraphs.pop();
    }
  }
  parsed.text = paragraphs.join("\n\n");
  return parsed;
}
