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

/** A write of a commit that holds several (`groupMessage`): its subject `tool(mode): path` and its meta. */
export interface GroupedWrite {
  subject: string;
  meta: HistoryMeta;
}

const GROUP_SUBJECT = /^\d+ writes: /;
const GROUP_FIELDS = ["Reason", "Via", "User"] as const;

/**
 * One commit of several writes of different notes: the subject `N writes: path, path, …`, then a
 * paragraph per write, its subject on the first line and each of reason, client and user on a line of
 * its own. Every field is one line (commitMessage's rules), so the paragraphs read back unambiguously.
 */
export function groupMessage(writes: readonly GroupedWrite[], paths: readonly string[]): string {
  const parts = [cut(oneLine(`${writes.length} writes: ${paths.join(", ")}`), SUBJECT_MAX)];
  for (const { subject, meta } of writes) {
    const lines = [cut(oneLine(subject), SUBJECT_MAX)];
    const fields: Array<[string, string | undefined, number]> = [
      ["Reason", meta.reason, REASON_MAX],
      ["Via", meta.via, TRAILER_MAX],
      ["User", meta.user, TRAILER_MAX],
    ];
    for (const [key, value, max] of fields) {
      const text = value === undefined ? "" : oneLine(value);
      if (text !== "") lines.push(`${key}: ${cut(text, max)}`);
    }
    parts.push(lines.join("\n"));
  }
  return `${parts.join("\n\n")}\n`;
}

/**
 * The write of `path` in a commit of several (groupMessage), as parseMessage reads a commit of one;
 * null when the message is not such a commit or names no write of the path (a subject cut short).
 */
export function parseGroupedWrite(message: string, path: string): ParsedMessage | null {
  const paragraphs = message.replace(/\r\n/g, "\n").trim().split(/\n{2,}/);
  if (paragraphs.length < 2 || !GROUP_SUBJECT.test(paragraphs[0]!)) return null;
  for (const paragraph of paragraphs.slice(1)) {
    const [subject = "", ...rest] = paragraph.split("\n");
    // `tool(mode): path`: a tool's name holds no ": ", so the path is all after the first one.
    const at = subject.indexOf(": ");
    if (at < 0 || subject.slice(at + 2) !== path) continue;
    const parsed: ParsedMessage = { text: subject };
    for (const line of rest) {
      const field = /^([A-Za-z]+): (.*)$/.exec(line);
      const key = field?.[1] as (typeof GROUP_FIELDS)[number] | undefined;
      if (!field || !key || !GROUP_FIELDS.includes(key)) continue;
      if (key === "Reason") parsed.text = `${subject}\n\n${field[2]!}`;
      else if (key === "Via") parsed.via = field[2]!;
      else parsed.user = field[2]!;
    }
    return parsed;
  }
  return null;
}
