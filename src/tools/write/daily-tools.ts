// The day-to-day write tools: templates, the daily note, inbox captures, tasks and attachments.
import type { AnyToolDefinition } from "../types";
import { attachmentPut } from "./attachment-put";
import { capture } from "./capture";
import { journal, journalRange } from "./journal";
import { noteFromTemplate } from "./note-from-template";
import { taskToggle } from "./task-toggle";

export const DAILY_TOOLS: readonly AnyToolDefinition[] = [noteFromTemplate, journal, journalRange, capture, taskToggle, attachmentPut];
