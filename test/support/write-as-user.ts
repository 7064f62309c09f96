// The headless writer in a process of its own, so that a test running as root can see what a server
// started as another user does. Arguments: the vault folder, then JSON steps
// ({ write: path, text } replaces a note as the write path does, hash-checked; { trash: path, copyOf }
// keeps a trash copy). Prints one JSON outcome per step: { ok: true } or { code, message }.
import { readFileSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../../src/core/errors";
import { contentHash } from "../../src/core/notes/hash";
import { FsVault } from "../../src/hosts/node/fs-vault";
import { FsWriter } from "../../src/hosts/node/fs-writer";
import { nodeHasher } from "../../src/hosts/node/services";

type Step = { write: string; text: string } | { trash: string; copyOf: string };

async function main(): Promise<void> {
  const [root, stepsJson] = process.argv.slice(2);
  if (root === undefined || stepsJson === undefined) throw new Error("usage: write-as-user <vault> <steps as JSON>");
  const writer = new FsWriter(new FsVault(root), nodeHasher);
  const encoder = new TextEncoder();
  for (const step of JSON.parse(stepsJson) as Step[]) {
    try {
      if ("write" in step) {
        const before = new Uint8Array(readFileSync(path.join(root, ...step.write.split("/"))));
        await writer.writeFile(step.write, encoder.encode(step.text), contentHash(before, (bytes) => nodeHasher.sha256Hex(bytes)));
      } else {
        await writer.writeHidden(step.trash, encoder.encode("copy\n"), step.copyOf);
      }
      console.log(JSON.stringify({ ok: true }));
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      console.log(JSON.stringify({ code: error.code, message: error.message }));
    }
  }
}

void main();
