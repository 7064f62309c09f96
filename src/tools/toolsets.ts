// A user's toolsets as written in the config file, on the command line or in the plugin's settings:
// one checker, so every place accepts the same names and explains a wrong one the same way.
import { TOOL_GROUPS, isToolGroup, type ToolGroup, type UserInfo } from "./types";

/** Stands for every toolset; the same as naming none at all. */
export const ALL_TOOLSETS = "all";

/** The tools of the `host` group exist only in the Obsidian plugin. */
export type ToolsetHost = "headless" | "plugin";

export function toolsetNames(host: ToolsetHost): ToolGroup[] {
  return TOOL_GROUPS.filter((group) => host === "plugin" || group !== "host");
}

/**
 * Why `name` is not a toolset of this host, or null when it is one (or `all`). The text never quotes
 * the name: in a config file a token pasted on the wrong line must not be printed.
 */
export function toolsetProblem(name: string, host: ToolsetHost): string | null {
  if (name === ALL_TOOLSETS) return null;
  if (name === "host" && host === "headless") {
    return "names host, the toolset of the tools only the Obsidian plugin has (active_note, open_note); the headless server has none of them";
  }
  if (isToolGroup(name)) return null;
  return `must be one of ${[...toolsetNames(host), ALL_TOOLSETS].join(", ")}`;
}

/**
 * Names already checked by `toolsetProblem`, in the order of TOOL_GROUPS without repeats; undefined
 * (every toolset) when they include `all`.
 */
export function chosenToolsets(names: readonly string[]): ToolGroup[] | undefined {
  if (names.includes(ALL_TOOLSETS)) return undefined;
  return TOOL_GROUPS.filter((group) => names.includes(group));
}

/** Whether the user's toolsets include this group; a user without toolsets has every group. */
export function offersGroup(user: UserInfo, group: ToolGroup): boolean {
  return user.toolsets === undefined || user.toolsets.includes(group);
}
