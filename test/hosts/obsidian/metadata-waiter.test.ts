import { test } from "node:test";
import assert from "node:assert/strict";
import type { App as ObsidianApp } from "obsidian";
import { MetadataWaiter } from "../../../src/hosts/obsidian/metadata-waiter";
import { withApp } from "../../obsidian-stand-in/fixtures";

// The waiter's timers are window's, as in Obsidian.
(globalThis as { window?: unknown }).window ??= globalThis;

test("a waiter settles on the parse of the text it expects, not on a parse of the version before", { timeout: 10_000 }, async () => {
  await withApp({ "note.md": "# Start\n" }, async (app) => {
    const waiter = new MetadataWaiter(app as unknown as ObsidianApp, 600_000);
    try {
      const file = app.vault.getFileByPath("note.md")!;
      // The first write's parse is still pending when the second write registers its waiter.
      await app.vault.modify(file, "# First\n");
      const second = "# Second\n\n- [ ] a task\n";
      const pending = waiter.expect("note.md", second);
      await app.vault.modify(file, second);
      await pending.done;
      assert.deepEqual(app.metadataCache.getFileCache(file)?.headings?.map((heading) => heading.heading), ["Second"]);
      assert.equal(app.metadataCache.getFileCache(file)?.listItems?.length, 1);
    } finally {
      waiter.detach();
    }
  });
});

// Its own timeout is far beyond the test's: settling at all means settling on the parse.
test("a waiter with a byte order mark on one side only still settles on that text's parse", { timeout: 10_000 }, async () => {
  await withApp({ "bom.md": "x\n" }, async (app) => {
    const waiter = new MetadataWaiter(app as unknown as ObsidianApp, 600_000);
    try {
      const file = app.vault.getFileByPath("bom.md")!;
      const pending = waiter.expect("bom.md", "\uFEFF# With mark\n");
      await app.vault.modify(file, "# With mark\n");
      await pending.done;
      assert.deepEqual(app.metadataCache.getFileCache(file)?.headings?.map((heading) => heading.heading), ["With mark"]);
    } finally {
      waiter.detach();
    }
  });
});
