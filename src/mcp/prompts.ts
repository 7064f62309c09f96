// Prompts: short plans that tell the agent which tools to call in which order.
import type { GetPromptResult, ListPromptsResult } from "@modelcontextprotocol/server";
import { ToolError } from "../core/errors";
import type { UserInfo, VaultDirectory } from "../tools/types";

interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  steps(vault: string): string[];
  /** The last step: change the vault, or, for a read-only user, say what should change. */
  finish: { write: string; readOnly: string };
}

const VAULT_ARGUMENT = {
  name: "vault",
  description: "The vault to work on; the default vault when omitted.",
  required: false,
};

const PROMPTS: readonly PromptDefinition[] = [
  {
    name: "review_vault",
    title: "Review a vault",
    description: "Find broken links, orphans, stale and empty notes and waiting inbox items, then propose fixes.",
    steps: (vault) => [
      `Call vault_stats with vault "${vault}" for its size and health numbers.`,
      `Call vault_review with vault "${vault}"; every finding comes with a reason.`,
      "For each broken link, call note_backlinks on the missing target and note_search for the note that was meant.",
      "Group the findings by kind and propose one fix per finding.",
    ],
    finish: {
      write:
        "Apply the fixes the user approves: note_read first, then note_edit with the content_hash; for note_move or note_merge run dry_run: true first and show the plan.",
      readOnly: "You have read-only access: list the proposed fixes with the calls that would make them; change nothing.",
    },
  },
  {
    name: "process_inbox",
    title: "Process the inbox",
    description: "File each inbox note where it belongs: merge, move, tag and link it.",
    steps: (vault) => [
      `Call note_list with vault "${vault}" and prefix "inbox/" to see the waiting notes.`,
      "For each one, note_read it, then note_search and note_related to find where it belongs.",
      "Decide per note: merge into an existing note, move it to a folder, or keep it; name the reason.",
    ],
    finish: {
      write:
        "Carry the decisions out: note_merge or note_move with dry_run: true first, then for real; add tags with note_frontmatter and links with note_edit. End with a list of what went where.",
      readOnly: "You have read-only access: present the decisions as a table (note, action, target, reason); change nothing.",
    },
  },
  {
    name: "weekly_review",
    title: "Weekly review",
    description: "Summarise the past week from journal entries, changed notes and open tasks.",
    steps: (vault) => [
      `Call journal_range with vault "${vault}", from "7d" and to "today" for the week's journal entries.`,
      `Call note_search with vault "${vault}", no query and modified_after "7d" for the notes changed this week.`,
      `Call task_list with vault "${vault}" for open tasks; note which are overdue or done this week.`,
      `Call vault_review with vault "${vault}" for inbox items still waiting.`,
      "Write a summary: what happened, what changed, open tasks, suggested focus for next week.",
    ],
    finish: {
      write: "Offer to append the summary to today's journal note with journal and append; do so only when the user agrees.",
      readOnly: "You have read-only access: give the summary in your answer; change nothing.",
    },
  },
];

export const PROMPT_NAMES: readonly string[] = PROMPTS.map((prompt) => prompt.name);

export function listPrompts(): ListPromptsResult {
  return {
    prompts: PROMPTS.map(({ name, title, description }) => ({ name, title, description, arguments: [VAULT_ARGUMENT] })),
  };
}

function promptText(prompt: PromptDefinition, vault: string, user: UserInfo): string {
  const steps = [...prompt.steps(vault), user.readOnly ? prompt.finish.readOnly : prompt.finish.write];
  return [prompt.description, ...steps.map((step, index) => `${index + 1}. ${step}`)].join("\n");
}

export function getPrompt(
  name: string,
  args: Record<string, string> | undefined,
  user: UserInfo,
  directory: VaultDirectory,
): GetPromptResult {
  const prompt = PROMPTS.find((candidate) => candidate.name === name);
  if (!prompt) {
    throw new ToolError("invalid_argument", `Unknown prompt "${name}". Prompts: ${PROMPT_NAMES.join(", ")} (see prompts/list).`);
  }
  const vault = directory.get(args?.vault?.trim() || undefined).name;
  return {
    description: prompt.description,
    messages: [{ role: "user", content: { type: "text", text: promptText(prompt, vault, user) } }],
  };
}
