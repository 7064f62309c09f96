// What the note-editing tools share: the target must be a note, and agents' text arrives as LF.
import { ToolError } from "../../core/errors";
import type { FileStat } from "../../core/ports";
import type { VaultEngine } from "../../core/vault/types";

/**
 * engine.resolve for a note to be changed: a path naming another kind of file is refused. Kept for the
 * tools that import it; new code calls engine.resolve(input, { note: "only" }).
 */
export function resolveNoteTarget(engine: VaultEngine, input: string): Promise<{ path: string; stat: FileStat | null }> {
  return engine.resolve(input, { note: "only" });
}

/** Agents may send CRLF; the write path works on LF and restores a CRLF file's line endings itself. */
export function toLf(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

export function missingNote(path: string, vault: string, hint: string): ToolError {
  return new ToolError("not_found", `Note "${path}" does not exist in vault "${vault}". ${hint}`, { details: { path } });
}
