// What the history tools share: the vault's history or an error saying what to do without one.
import { ToolError } from "../../core/errors";
import type { HistoryPort } from "../../core/ports";
import type { VaultEngine } from "../../core/vault/types";
import { string } from "../schema";

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

/** Bytes that contain a NUL are shown as binary, not as a text diff. */
export function isBinary(bytes: Uint8Array | null): boolean {
  return bytes !== null && bytes.includes(0);
}
