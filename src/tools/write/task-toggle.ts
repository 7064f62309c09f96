// task_toggle: ticks or unticks one task, found by its file line (as task_list reports it) or by a
// unique piece of its text. Only the character in the box changes; the rest of the line stays as is.
import { ToolError } from "../../core/errors";
import type { FrontmatterParses } from "../../core/notes/frontmatter";
import { noteFacts, parseNote, stripBom, type TaskItem } from "../../core/notes/structure";
import { pathField, vaultField } from "../common";
import { boolean, integer, object, optional, string } from "../schema";
import { defineTool } from "../types";
import { actorOf, contentHashField, dryRunField, reasonField, WRITES_NOTE, writeResult } from "./common";

const MAX_LISTED = 20;
const SHOWN_LINE = 80;
// The box of a task line: optional blockquote markers, indentation, a bullet or number, `[c]`.
const TASK_BOX = /^((?:[ \t]*>)*[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[)(.)\]/;

export interface TaskTarget {
  line?: number | undefined;
  text?: string | undefined;
}

function describe(task: TaskItem): string {
  return `line ${task.line}: [${task.status}] ${task.text.length > SHOWN_LINE ? `${task.text.slice(0, SHOWN_LINE)}…` : task.text}`;
}

function listed(tasks: readonly TaskItem[]): string {
  const shown = tasks.slice(0, MAX_LISTED).map(describe).join("; ");
  return tasks.length > MAX_LISTED ? `${shown}; and ${tasks.length - MAX_LISTED} more` : shown;
}

function candidates(tasks: readonly TaskItem[]): Array<{ line: number; text: string; done: boolean }> {
  return tasks.slice(0, MAX_LISTED).map((task) => ({ line: task.line, text: task.text, done: task.done }));
}

/** The one task the agent means, or an error naming what is there instead. */
/** `parses`: the write's frontmatter parses, when found inside one. */
export function findTask(text: string, path: string, target: TaskTarget, parses?: FrontmatterParses): TaskItem {
  const tasks = noteFacts(text, parseNote(text, parses), path).tasks;
  const wanted = target.text?.toLowerCase();
  if (target.line !== undefined) {
    const task = tasks.find((candidate) => candidate.line === target.line);
    if (!task) {
      const lines = text.split("\n");
      const shown = target.line <= lines.length ? `\`${(lines[target.line - 1] ?? "").trim().slice(0, SHOWN_LINE)}\`` : `beyond the end (the note has ${lines.length} lines)`;
      throw new ToolError(
        "invalid_argument",
        `Line ${target.line} of "${path}" is not a task: ${shown}. Call task_list with path "${path}" to see its tasks and their lines${tasks.length > 0 ? ` (${listed(tasks)})` : ""}.`,
        { details: { path, line: target.line, tasks: candidates(tasks) } },
      );
    }
    if (wanted !== undefined && !task.text.toLowerCase().includes(wanted)) {
      throw new ToolError(
        "conflict",
        `The task at line ${target.line} of "${path}" reads "${task.text.slice(0, SHOWN_LINE)}", which does not contain "${target.text}"; the note may have changed. Call task_list with path "${path}" and pass the current line.`,
        { retry: "inspect_state", details: { path, line: target.line, tasks: candidates(tasks) } },
      );
    }
    return task;
  }
  if (wanted === undefined || wanted === "") {
    throw new ToolError("invalid_argument", `Pass line (from task_list) or text (a unique part of the task) to say which task of "${path}" to toggle.`);
  }
  const matching = tasks.filter((task) => task.text.toLowerCase().includes(wanted));
  const exact = matching.filter((task) => task.text.toLowerCase() === wanted);
  const chosen = exact.length === 1 ? exact : matching;
  if (chosen.length === 1) return chosen[0]!;
  if (chosen.length === 0) {
    throw new ToolError(
      "not_found",
      `No task of "${path}" contains "${target.text}". ${tasks.length === 0 ? "The note has no tasks." : `Its tasks: ${listed(tasks)}.`} Call task_list with path "${path}" to see them.`,
      { details: { path, tasks: candidates(tasks) } },
    );
  }
  throw new ToolError(
    "invalid_argument",
    `"${target.text}" matches ${chosen.length} tasks of "${path}": ${listed(chosen)}. Pass line with one of these line numbers, or a longer text.`,
    { details: { path, candidates: candidates(chosen) } },
  );
}

/** The text with the task's box set to done (`x`) or open (` `). */
export function setTaskBox(text: string, line: number, done: boolean): string {
  const lines = text.split("\n");
  const current = lines[line - 1];
  const match = current === undefined ? null : TASK_BOX.exec(current);
  if (current === undefined || !match) {
    throw new ToolError("internal", `Line ${line} no longer holds a task box; read the note again with note_read.`);
  }
  const status = match[2]!;
  const isDone = status !== " ";
  if (isDone === done) return text;
  const prefix = match[1]!;
  lines[line - 1] = `${prefix}${done ? "x" : " "}${current.slice(prefix.length + 1)}`;
  return lines.join("\n");
}

export const taskToggle = defineTool({
  name: "task_toggle",
  title: "Tick or untick a task",
  description:
    "Toggles one task of a note between `[ ]` and `[x]` (or sets it with `done`), found by `line` (the file line task_list reports) or by `text` (a case-insensitive part of the task's text that matches one task only; an exact match wins over partial ones). Only the box character changes. With both, the task at `line` must contain `text`. Returns the write result with the task as it is now (`task.line` may move down when created/updated are added to the frontmatter). Use task_list first to find tasks.",
  group: "write",
  input: object({
    vault: vaultField,
    path: pathField,
    line: optional(integer({ description: "File line of the task (1-based, frontmatter included), as task_list reports it.", minimum: 1 })),
    text: optional(string({ description: "A unique part of the task's text (case-insensitive)." })),
    done: optional(boolean({ description: "true to tick, false to untick; omit to toggle." })),
    content_hash: contentHashField,
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: WRITES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { path } = await engine.resolve(args.path, { note: true });
    let found: TaskItem | undefined;
    let done = false;
    const result = await engine.writes.write({
      path,
      tool: "task_toggle",
      actor: actorOf(ctx),
      mode: "update",
      dry_run: args.dry_run,
      ...(args.content_hash !== undefined ? { expected_hash: args.content_hash } : {}),
      ...(args.reason !== undefined ? { reason: args.reason } : {}),
      transform: (current, parses) => {
        const text = current ?? "";
        found = findTask(text, path, { line: args.line, text: args.text }, parses);
        done = args.done ?? !found.done;
        return setTaskBox(text, found.line, done);
      },
    });
    const task = found!;
    let line = task.line;
    if (result.changed && !result.dry_run) {
      // Lines added above the task (created/updated in the frontmatter) move it down.
      const after = await engine.read(path, { note: true });
      const plain = after.text === undefined ? "" : stripBom(after.text);
      const moved = noteFacts(plain, parseNote(plain), path).tasks;
      line = moved.find((candidate) => candidate.line >= task.line && candidate.text === task.text)?.line ?? task.line;
    }
    return writeResult(result, { task: { line, text: task.text, done, previously_done: task.done } });
  },
});
