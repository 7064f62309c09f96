// The stand-in's metadata parser was written from obsidian-api.md alone; the production parser
// (src/core/notes/structure.ts) is what the headless host serves. On every note of both fixtures they
// must agree on everything the tools read — each one checks the other.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { CachedMetadata } from "obsidian";
import { parseNote } from "../../src/core/notes/structure";
import { parseMarkdownMetadata } from "./metadata/parse";
import { EDGE_VAULT, HELP_VAULT, vaultFiles } from "../support/vaults";

/** The fields the tools read, with the positions that matter for edits and outlines. */
function comparable(cache: CachedMetadata): Record<string, unknown> {
  return {
    frontmatter: cache.frontmatter ?? null,
    frontmatterPosition: cache.frontmatterPosition ?? null,
    frontmatterLinks: (cache.frontmatterLinks ?? []).map((link) => [link.key, link.link]),
    headings: (cache.headings ?? []).map((heading) => [heading.heading, heading.level, heading.position]),
    links: (cache.links ?? []).map((link) => [link.link, link.original, link.position.start.offset, link.position.end.offset]),
    embeds: (cache.embeds ?? []).map((embed) => [embed.link, embed.original, embed.position.start.line]),
    tags: (cache.tags ?? []).map((tag) => [tag.tag, tag.position.start.line, tag.position.start.col]),
    listItems: (cache.listItems ?? []).map((item) => [item.task ?? null, item.parent, item.position.start.line]),
    blocks: Object.keys(cache.blocks ?? {}).sort(),
  };
}

for (const [name, root] of [
  ["edge-vault", EDGE_VAULT],
  ["obsidian-help-en", HELP_VAULT],
] as const) {
  test(`the stand-in's parser and the production parser agree on every note of ${name}`, () => {
    const notes = vaultFiles(root).filter((file) => file.endsWith(".md"));
    assert.ok(notes.length > (name === "edge-vault" ? 10 : 150), `${notes.length} notes`);
    const disagreements: string[] = [];
    let links = 0;
    for (const note of notes) {
      const text = readFileSync(path.join(root, note), "utf8").replace(/^\uFEFF/, "");
      const production = comparable(parseNote(text));
      const standIn = comparable(parseMarkdownMetadata(text));
      links += (production.links as unknown[]).length;
      for (const field of Object.keys(production)) {
        if (JSON.stringify(production[field]) !== JSON.stringify(standIn[field])) disagreements.push(`${note}: ${field}`);
      }
    }
    assert.ok(links > (name === "edge-vault" ? 15 : 1000), `the corpus exercises links (${links})`);
    assert.deepEqual(disagreements, []);
  });
}
