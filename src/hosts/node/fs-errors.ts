// File-system failures as tool errors that name the vault-relative path and say what to do. Node's
// own messages carry the host's absolute path (and, for a temp file, the process id), so they never
// leave this module: only the error code (EACCES, ENAMETOOLONG, …) goes on, as `details.cause`.
import { ToolError, type ErrorState } from "../../core/errors";
import { leadsOutside } from "../../core/vault/directory";
import { OutsideVaultError } from "./contained-fs";

/** What the server was doing to the file when it failed, as the message words it. */
export type FsAction = "read" | "write" | "delete" | "move" | "reach";

const VERBS: Record<FsAction, string> = {
  read: "read",
  write: "write",
  delete: "delete",
  move: "move",
  reach: "open the folders leading to",
};

/** A Node system error: a string code such as "EACCES" (its message and path stay unread). */
export function fsErrorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/**
 * The ToolError for a failed file-system call on `relative` (a vault-relative path), or the error
 * itself when it is not a file-system error (a ToolError such as a conflict passes through).
 */
export function fsToolError(error: unknown, relative: string, action: FsAction, state: ErrorState = "not_applied"): unknown {
  if (error instanceof OutsideVaultError) return leadsOutside(relative, state);
  const code = fsErrorCode(error);
  if (code === undefined || error instanceof ToolError) return error;
  const details = { path: relative, cause: code };
  const verb = VERBS[action];
  const fail = (kind: ToolError["code"], message: string, retry?: ToolError["retry"]): ToolError =>
    new ToolError(kind, message, { state, details, ...(retry ? { retry } : {}) });
  switch (code) {
    case "EACCES":
    case "EPERM":
      return fail("forbidden", `permission denied: ${relative} — the server's user may not ${verb} this file (or a folder above it) on the host. The vault's owner can fix its permissions; until then use another path.`);
    case "EROFS":
      return fail("forbidden", `read-only file system: ${relative} — the disk that holds the vault is mounted read-only on the host, so nothing can be written there.`);
    case "ENAMETOOLONG":
      return fail("invalid_path", `name too long: ${relative} — the file system takes at most 255 bytes (UTF-8) per file or folder name and about 4,000 for the whole path. Use shorter names.`);
    case "ENOTDIR":
      return fail("invalid_path", `not a folder: a part of ${relative} is a file, so nothing can be stored below it. Call note_list to see the vault, and choose another folder.`);
    case "EISDIR":
      return fail("invalid_path", `${relative} is a folder, not a file. Call note_list with it as the folder to see its files.`);
    case "ELOOP":
      return fail("invalid_path", `${relative} goes through a loop of symbolic links on the host; use a path that does not.`);
    case "ENOENT":
      return fail("not_found", `${relative} does not exist (any more). Call note_list to see the vault's files.`);
    case "ENOSPC":
    case "EDQUOT":
      return fail("internal", `no space left on the device that holds the vault (the disk or the user's quota is full), so ${relative} could not be written. Ask the vault's owner to free some space, then try again.`, "inspect_state");
    case "EMFILE":
    case "ENFILE":
    case "EBUSY":
    case "EAGAIN":
    case "ETXTBSY":
      return fail("internal", `the host is busy (${code}) and could not ${verb} ${relative}; try again in a moment.`, "inspect_state");
    default:
      return fail("internal", `the host's file system failed (${code}) to ${verb} ${relative}; try again, and if it keeps failing, ask the vault's owner to look at the server's disk.`, "inspect_state");
  }
}
