// What every client must hand its model (or its user) at each step of the script, checked on the text
// the client passed on: the same expectations for all clients, so a client that drops part of a
// result fails here rather than in a user's session.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { EDITED_FROM, NOTE, parseSeen, type Seen, type StepId } from "./scenario";

export interface StepContext {
  client: string;
  /** The vault copy the client's server serves. */
  vaultDir: string;
}

/** The first JSON key in a text, where a client may have cut the text so it no longer parses. */
export function firstKey(text: string): string | undefined {
  return /"([A-Za-z_][A-Za-z0-9_]*)"\s*:/.exec(text.replace(/\\"/g, '"'))?.[1];
}

function noteText(context: StepContext): string {
  return readFileSync(path.join(context.vaultDir, NOTE), "utf8");
}

function saw(seen: Seen | undefined, step: StepId): Seen {
  assert.ok(seen, `the client sent the model no result for the ${step} step`);
  return seen;
}

export const CHECKS: Record<StepId, (seen: Seen | undefined, context: StepContext) => void> = {
  search: (seen) => {
    const { text } = saw(seen, "search");
    assert.ok(Array.isArray(parseSeen(text)?.hits), `the search result reached the model with its hits: ${text.slice(0, 300)}`);
    assert.ok(text.includes(NOTE), `the search result names ${NOTE}`);
  },
  read: (seen) => {
    const { text } = saw(seen, "read");
    assert.equal(typeof parseSeen(text)?.content_hash, "string", `the read reached the model with its content_hash: ${text.slice(0, 300)}`);
    assert.ok(text.includes("Word count is a"), "the read reached the model with the note's text");
  },
  edit: (seen, context) => {
    const { text, isError } = saw(seen, "edit");
    assert.notEqual(isError, true, `the hash-checked edit was applied: ${text.slice(0, 400)}`);
    assert.match(text, /"replacements"\s*:\s*1/, "the model sees the edit's result");
    assert.ok(noteText(context).includes(`${EDITED_FROM} (checked by ${context.client})`), "the note on disk holds the edit");
  },
  conflict: (seen, context) => {
    const { text, isError } = saw(seen, "conflict");
    assert.match(text, /changed since you read it/, `the model sees why the stale edit was refused: ${text.slice(0, 400)}`);
    assert.match(text, /note_read/, "the model sees which call to make instead");
    assert.notEqual(isError, false, "a client with an error flag sets it on the conflict");
    assert.ok(!noteText(context).includes("On phones"), "the stale edit changed nothing");
  },
  missing: (seen) => {
    const { text, isError } = saw(seen, "missing");
    assert.match(text, /does not exist/, `the model sees that the note is missing: ${text.slice(0, 400)}`);
    assert.notEqual(isError, false, "a client with an error flag sets it on the missing note");
  },
  union: (seen) => {
    const { text } = saw(seen, "union");
    assert.ok(Array.isArray(parseSeen(text)?.notes), `note_query took list arguments (anyOf): ${text.slice(0, 400)}`);
    assert.ok(text.includes("plugins/word-count"), "note_query's fields reached the model");
  },
  limit: (seen) => {
    const { text, isError } = saw(seen, "limit");
    assert.match(text, /\blimit\b/, `the model sees which argument was wrong: ${text.slice(0, 400)}`);
    // Gemini CLI checks arguments against the schema itself ("params/limit must be <= 50") and does not call.
    assert.match(text, /(at most|<=) 50/, "the model sees the allowed range");
    assert.notEqual(isError, false, "a client with an error flag sets it on the argument error");
  },
  large: (seen) => {
    const { text } = saw(seen, "large");
    assert.equal(firstKey(text), "response_truncated", `the cut result begins with its truncation note: ${text.slice(0, 300)}`);
    assert.match(text.slice(0, 2000), /narrow the call/, "the note's hint, saying how to get the rest, is within the first 2,000 characters");
  },
};

export interface Kept {
  /** The whole result reached the model (in the server's layout or re-serialised compactly). */
  whole: boolean;
  /** Characters of the result's start, and of its end, that the model got as sent. */
  head: number;
  tail: number;
  /** The result's length in the layout the client passed on. */
  total: number;
  /** The length of what the model got, the client's own wrapping included. */
  seenLength: number;
}

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

function commonSuffix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/**
 * How much of a result the client handed its model: clients wrap it (Codex: "Output:", Gemini CLI:
 * <untrusted_context>), some re-serialise its JSON compactly, and some cut its middle or keep a preview.
 */
export function keptOf(seen: string, sent: string): Kept {
  let compact = sent;
  try {
    compact = JSON.stringify(JSON.parse(sent));
  } catch {
    // Not JSON: compared as sent.
  }
  const measure = (form: string): Kept => {
    const start = seen.indexOf(form.slice(0, 64));
    const head = start < 0 ? 0 : commonPrefix(seen.slice(start), form);
    const marker = form.slice(-64);
    const end = seen.lastIndexOf(marker);
    const tail = end < 0 || head === form.length ? 0 : Math.min(commonSuffix(seen.slice(0, end + marker.length), form), form.length - head);
    return { whole: head === form.length, head, tail, total: form.length, seenLength: seen.length };
  };
  const [pretty, dense] = [measure(sent), measure(compact)];
  return dense.head + dense.tail > pretty.head + pretty.tail ? dense : pretty;
}

export function describeKept(kept: Kept): string {
  const n = (value: number): string => value.toLocaleString("en");
  if (kept.whole) return `whole (${n(kept.total)} chars)`;
  if (kept.head + kept.tail === 0) return `none of ${n(kept.total)} chars as sent (${n(kept.seenLength)} chars instead)`;
  return `first ${n(kept.head)} + last ${n(kept.tail)} of ${n(kept.total)} chars (${n(kept.seenLength)} seen)`;
}
