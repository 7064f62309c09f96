// The obsidian-api.md §2 helpers, plus the small free functions plugins import from "obsidian".
import type { FrontMatterInfo } from "obsidian";
import moment from "moment";
import YAML from "yaml";

export function normalizePath(path: string): string {
  let normalized = path.replace(/[\\/]+/g, "/").replace(/^\/+|\/+$/g, "");
  if (normalized === "") normalized = "/";
  return normalized.replace(/[\u00A0\u202F]/g, " ").normalize("NFC");
}

export function parseLinktext(linktext: string): { path: string; subpath: string } {
  const hash = linktext.indexOf("#");
  return hash < 0 ? { path: linktext, subpath: "" } : { path: linktext.slice(0, hash), subpath: linktext.slice(hash) };
}

export function getLinkpath(linktext: string): string {
  return parseLinktext(linktext).path;
}

export function stripHeading(heading: string): string {
  return heading
    .replace(/[!"#$%&()*+,.:;<=>?@^`{|}~/[\]\\\r\n]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

export function stripHeadingForLink(heading: string): string {
  return heading
    .replace(/[:#|^\\\r\n]|%%|\[\[|]]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

const NO_FRONTMATTER: FrontMatterInfo = { exists: false, frontmatter: "", from: 0, to: 0, contentStart: 0 };

export function getFrontMatterInfo(content: string): FrontMatterInfo {
  let from: number;
  if (content.startsWith("---\n")) from = 4;
  else if (content.startsWith("---\r\n")) from = 5;
  else return { ...NO_FRONTMATTER };
  let lineStart = from;
  while (lineStart <= content.length) {
    const newline = content.indexOf("\n", lineStart);
    const lineEnd = newline < 0 ? content.length : newline;
    const line = content.slice(lineStart, lineEnd).replace(/\r$/, "");
    if (line === "---") {
      return {
        exists: true,
        frontmatter: content.slice(from, lineStart),
        from,
        to: lineStart,
        contentStart: newline < 0 ? content.length : newline + 1,
      };
    }
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  return { ...NO_FRONTMATTER };
}

/** The app's YAML parser is undocumented; the core schema keeps dates as strings, as the app does. */
export function parseYaml(yaml: string): unknown {
  return YAML.parse(yaml, { schema: "core", logLevel: "error" }) as unknown;
}

export function stringifyYaml(value: unknown): string {
  return YAML.stringify(value, { schema: "core", lineWidth: 0 });
}

export interface Debouncer<T extends unknown[], V> {
  (...args: T): Debouncer<T, V>;
  cancel(): Debouncer<T, V>;
  run(): V | void;
}

export function debounce<T extends unknown[], V>(cb: (...args: T) => V, timeout = 0, resetTimer = false): Debouncer<T, V> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending: T | null = null;
  const fire = (): V | void => {
    timer = null;
    if (pending === null) return;
    const args = pending;
    pending = null;
    return cb(...args);
  };
  const debounced = ((...args: T) => {
    pending = args;
    if (timer !== null && resetTimer) {
      clearTimeout(timer);
      timer = null;
    }
    timer ??= setTimeout(fire, timeout);
    return debounced;
  }) as Debouncer<T, V>;
  debounced.cancel = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    pending = null;
    return debounced;
  };
  debounced.run = () => {
    if (timer !== null) clearTimeout(timer);
    return fire();
  };
  return debounced;
}

/** Icons are not drawn; each call is kept so tests can see which icon an element got. */
export const iconCalls: Array<{ el: unknown; icon: string }> = [];

export function setIcon(el: unknown, icon: string): void {
  iconCalls.push({ el, icon });
}

export const apiVersion = "1.13.1";

function versionParts(version: string): number[] {
  return version.split(".").map((part) => Number.parseInt(part, 10) || 0);
}

export function requireApiVersion(version: string): boolean {
  const have = versionParts(apiVersion);
  const want = versionParts(version);
  for (let i = 0; i < Math.max(have.length, want.length); i++) {
    const a = have[i] ?? 0;
    const b = want[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

export const Platform = {
  isDesktop: true,
  isMobile: false,
  isDesktopApp: true,
  isMobileApp: false,
  isIosApp: false,
  isAndroidApp: false,
  isPhone: false,
  isTablet: false,
  isMacOS: false,
  isWin: false,
  isLinux: true,
  isSafari: false,
  resourcePathPrefix: "app://local/",
};

export { moment };
