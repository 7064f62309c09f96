// Putting an earlier version of a note back (the restore command, note_restore): a bookkeeping write
// through the write path, so the state it replaces gets its own trash copy and `updated` stays as it was.
import { decodeNote, encodeNote } from "./text";
import type { WriteActor, WritePath, WriteResult } from "./write-path";

export interface RestoreRequest {
  path: string;
  /** The exact bytes of the version to bring back. */
  bytes: Uint8Array;
  /** Where the version came from, for the result and history: `trash`, `history`. */
  source: string;
  expected_hash?: string;
  dry_run?: boolean;
  reason?: string;
  actor?: WriteActor;
}

/**
 * The version's own byte form (BOM, CRLF) comes back with it. Only a note with mixed line endings
 * cannot be rebuilt byte for byte; it comes back with uniform ones, and the result says so.
 */
export async function restoreVersion(writes: WritePath, request: RestoreRequest): Promise<WriteResult> {
  const { text, encoding } = decodeNote(request.bytes);
  const exact = sameBytes(encodeNote(text, encoding), request.bytes);
  const result = await writes.write({
    path: request.path,
    tool: `note_restore(${request.source})`,
    mode: "upsert",
    expected_hash: request.expected_hash,
    dry_run: request.dry_run ?? false,
    reason: request.reason,
    skip_touch: true,
    allow_invalid_frontmatter: true,
    existing_name: true,
    encoding,
    ...(request.actor ? { actor: request.actor } : {}),
    transform: () => text,
  });
  if (!exact) result.warnings.push("The version had mixed line endings; it was restored with uniform ones.");
  return result;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}
