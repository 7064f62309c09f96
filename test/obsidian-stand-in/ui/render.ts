// A static page of what the stand-in's DOM holds, with Obsidian's base styles and the plugin's CSS,
// for screenshots in a real browser.
import { readFileSync } from "node:fs";
import path from "node:path";

export interface StaticPage {
  bodyHtml: string;
  /** Stylesheets applied after Obsidian's base styles, in order (the plugin's styles.css). */
  css: string[];
  theme: "dark";
}

export function renderStaticPage(page: StaticPage): string {
  const base = readFileSync(path.join(__dirname, "obsidian-base.css"), "utf8");
  const styles = [base, ...page.css].map((css) => `<style>\n${css}\n</style>`).join("\n");
  return `<!doctype html>\n<html><head><meta charset="utf-8">${styles}</head>\n<body class="theme-${page.theme}">${page.bodyHtml}</body></html>\n`;
}

/** Copies what controls hold (value, checked, selection) into attributes, which outerHTML keeps. */
export function freezeFormState(root: Element): void {
  for (const input of Array.from(root.querySelectorAll("input"))) {
    if (input.type === "checkbox") input.toggleAttribute("checked", input.checked);
    else input.setAttribute("value", input.value);
  }
  for (const area of Array.from(root.querySelectorAll("textarea"))) area.textContent = area.value;
  for (const select of Array.from(root.querySelectorAll("select"))) {
    for (const option of Array.from(select.options)) option.toggleAttribute("selected", option.value === select.value);
  }
}
