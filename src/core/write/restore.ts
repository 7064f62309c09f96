// Putting an earlier version of a note back (the restore command, note_restore): a bookkeeping write
// through the write path, so the state it replaces gets its own trash copy and `updated` stays as it was.
import { decodeNote } from "./text";
import type { WritePath, WriteResult } from "./write-path";

export interface RestoreRequest {
  path: string;
  /** The exact bytes of the version to bring back. */
  bytes: Uint8Array;
  /** Where the version came from, for the result and history: `trash`, `history`. */
  source: string;
  expected_hash?: string;
  dry_run?: boolean;
  reason?: string;
}

export function restoreVersion(writes: WritePath, request: RestoreRequest): Promise<WriteResult> {
  const { text } = decodeNote(request.bytes);
  return writes.write({
    path: request.path,
    tool: `note_restore(${request.source})`,
    mode: "upsert",
    expected_hash: request.expected_hash,
    dry_run: request.dry_run ?? false,
    reason: request.reason,
    skip_touch: true,
    allow_invalid_frontmatter: true,
    transform: () => text,
  });
}
