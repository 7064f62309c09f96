// Every tool the engine offers, and the slice a given user may see: the user's toolsets, then the
// read-only filter on top.
import { attachmentRead } from "./find/attachment-read";
import { attachmentList, noteList } from "./find/note-list";
import { noteBacklinks, noteRelated } from "./find/links";
import { noteOutline, noteRead } from "./find/note-read";
import { noteQuery } from "./find/note-query";
import { noteSearch } from "./find/note-search";
import { tagList, taskList } from "./find/tags-tasks";
import { vaultGrep } from "./find/vault-grep";
import { vaultList, vaultStats } from "./find/vault-info";
import { offersGroup } from "./toolsets";
import type { AnyToolDefinition, UserInfo } from "./types";
import { DAILY_TOOLS } from "./write/daily-tools";
import { EDIT_TOOLS } from "./write/edit-tools";
import { noteDiff, noteHistory } from "./history/note-history";
import { noteRestore } from "./history/note-restore";
import { noteMerge } from "./maintain/note-merge";
import { noteMove } from "./maintain/note-move";
import { noteSplit } from "./maintain/note-split";
import { tagRename } from "./maintain/tag-rename";
import { vaultReplace } from "./maintain/vault-replace";
import { vaultCreate } from "./maintain/vault-create";
import { vaultReview } from "./maintain/vault-review";

export const FIND_TOOLS: readonly AnyToolDefinition[] = [
  vaultList,
  vaultStats,
  noteList,
  noteSearch,
  vaultGrep,
  noteRead,
  noteOutline,
  noteBacklinks,
  noteRelated,
  tagList,
  taskList,
  attachmentList,
  attachmentRead,
  noteQuery,
];

export const HISTORY_TOOLS: readonly AnyToolDefinition[] = [noteHistory, noteDiff, noteRestore];

export const MAINTAIN_TOOLS: readonly AnyToolDefinition[] = [noteMove, noteMerge, noteSplit, tagRename, vaultReplace, vaultReview, vaultCreate];

export const ALL_TOOLS: readonly AnyToolDefinition[] = [...FIND_TOOLS, ...DAILY_TOOLS, ...EDIT_TOOLS, ...MAINTAIN_TOOLS, ...HISTORY_TOOLS];

export function isMutating(tool: AnyToolDefinition): boolean {
  return !tool.annotations.readOnlyHint;
}

/** Only the groups of the user's toolsets; read-only users are not offered mutating tools at all (SPEC §3). */
export function toolsFor(user: UserInfo, tools: readonly AnyToolDefinition[] = ALL_TOOLS): AnyToolDefinition[] {
  return tools.filter((tool) => offersGroup(user, tool.group) && (!user.readOnly || !isMutating(tool)));
}
