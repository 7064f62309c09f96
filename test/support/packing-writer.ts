// A process that commits edits to a history as fast as it can, with packing set to start early and
// take small packs, so a kill from the test lands inside a pack as often as between them. It prints
// "packing" once the first pack is written, and the id and text of each commit as it is made.
import { promises as fsp } from "node:fs";
import { GitHistory } from "../../src/history/git-history";

const [dir, gitdir] = process.argv.slice(2);
if (!dir || !gitdir) throw new Error("usage: packing-writer.ts VAULT_DIR GITDIR");
const encoder = new TextEncoder();

async function main(): Promise<void> {
  const history = await GitHistory.open({
    vault: "v",
    dir: dir!,
    gitdir: gitdir!,
    fs: fsp,
    clock: { now: () => Date.now() },
    logger: {
      log: (entry) => {
        if (entry.event === "history_packed") process.stdout.write("packing\n");
      },
    },
    packing: { afterLoose: 40, budget: { objects: 30, bytes: 1024 * 1024 } },
  });
  for (let n = 0; ; n++) {
    const file = `notes/note ${n % 7}.md`;
    const text = `# Note ${n % 7}\n\n${"filler text ".repeat(200)}\nedit ${n}\n`;
    const id = await history.commit([file], `note_edit: ${file}`, { tool: "note_edit" }, new Map([[file, encoder.encode(text)]]));
    process.stdout.write(`${JSON.stringify({ id, file, text })}\n`);
  }
}

void main();
