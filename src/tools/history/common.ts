// What the history tools share: the vault's history or an error saying what to do without one, and
// the path of a note or attachment as the history knows it.
import { ToolError } from "../../core/errors";
import { extname } from "../../core/notes/paths";
import type { HistoryPort } from "../../core/ports";
import type { VaultEngine } from "../../core/vault/types";
import { string } from "../schema";
import { ATTACHMENT_EXTENSIONS } from "../write/attachment-put";

export const revisionField = string({ description: "A commit id from note_history (the short form is enough), or HEAD for the newest commit." });

export function requireHistory(engine: VaultEngine, tool: string): HistoryPort {
  const history = engine.history();
  const status = history?.status() ?? { versioned: false as const, reason: "history is turned off for this vault" };
  if (history && status.versioned) return history;
  throw new ToolError(
    "unsupported",
    `Vault "${engine.name}" keeps no history (${status.versioned ? "unknown reason" : status.reason}), so ${tool} cannot work here. ` +
      "Versions that tools replaced or deleted are still kept as trash copies in .trash/secondbrain/ for the retention period; " +
      'bring one back with the Obsidian command "Restore a previous version", or read the current text with note_read. ' +
      "vault_list shows for each vault whether it is versioned and why not.",
    { details: { vault: engine.name, versioned: false } },
  );
}

/** Notes gain `.md` as elsewhere; an attachment path (by its extension) stays as it is. */
export async function resolveHistoryPath(engine: VaultEngine, input: string): Promise<string> {
  const attachment = ATTACHMENT_EXTENSIONS.includes(extname(input.trim()));
  return (await engine.resolve(input, { note: !attachment })).path;
}

/** Bytes that contain a NUL are shown as binary, not as a text diff. */
export function isBinary(bytes: Uint8Array | null): boolean {
  return bytes !== null && bytes.includes(0);
}
