// The core note-writing tools, in the order tools/list shows them.
import type { AnyToolDefinition } from "../types";
import { canvasEdit } from "./canvas-edit";
import { noteCreate } from "./note-create";
import { noteDelete } from "./note-delete";
import { noteEdit } from "./note-edit";
import { noteFrontmatter } from "./note-frontmatter";
import { noteSectionEdit } from "./note-section-edit";
import { noteWrite } from "./note-write";

export const EDIT_TOOLS: readonly AnyToolDefinition[] = [noteCreate, noteWrite, noteEdit, noteSectionEdit, noteFrontmatter, noteDelete, canvasEdit];
