import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildInstructions, MAX_VAULT_INSTRUCTIONS_CHARS } from "../../src/mcp/instructions";
import type { VaultEngine } from "../../src/core/vault/types";
import type { VaultDirectory } from "../../src/tools/types";
import { READER_TOKEN, SIDE_INSTRUCTIONS, SIDE_ONLY_TOKEN, startMcpServer, startVaults, WRITER_TOKEN, type TestVaults } from "./harness";

let vaults: TestVaults;

before(async () => {
  vaults = await startVaults();
});
after(async () => {
  await vaults.stop();
});

const writer = { name: "writer", readOnly: false, vaults: [] };

test("instructions give the rules, the vaults and each vault's INSTRUCTIONS.md", async () => {
  const text = await buildInstructions(writer, vaults.registry.forUser(writer));
  for (const rule of [/note_search/, /content_hash/, /note_edit/, /note_section_edit/, /dry_run/, /note_outline before note_read/]) {
    assert.match(text, rule);
  }
  assert.match(text, /Default vault: "edge"/);
  assert.match(text, /Vaults you can use: "edge", "side"/);
  assert.match(text, /## Vault "edge": INSTRUCTIONS\.md\n\n# Conventions of this vault/);
  assert.ok(text.includes(SIDE_INSTRUCTIONS));
  assert.ok(!/read-only/.test(text));
});

test("read-only users are told no mutating tools exist, and get no write rules", async () => {
  const reader = { name: "reader", readOnly: true, vaults: [] };
  const text = await buildInstructions(reader, vaults.registry.forUser(reader));
  assert.match(text, /read-only: no tools that change notes exist/);
  assert.ok(!text.includes("Prefer note_edit"));
});

test("a user scoped to one vault hears nothing of the others", async () => {
  const scoped = { name: "side-only", readOnly: false, vaults: ["side"] };
  const text = await buildInstructions(scoped, vaults.registry.forUser(scoped));
  assert.match(text, /Default vault: "side"/);
  assert.ok(!text.includes("edge"));
  assert.ok(!text.includes("Conventions of this vault"));
});

test("a very long INSTRUCTIONS.md is cut and points to its resource", async () => {
  const edge = vaults.registry.lookup("edge")!;
  const long: VaultEngine = Object.assign(Object.create(edge) as VaultEngine, {
    instructions: async () => "x".repeat(MAX_VAULT_INSTRUCTIONS_CHARS + 10),
  });
  const directory: VaultDirectory = { defaultName: () => "edge", visible: () => [long], get: () => long };
  const text = await buildInstructions(writer, directory);
  assert.match(text, /\(cut here; read secondbrain:\/\/edge\/INSTRUCTIONS for the rest\)$/);
  assert.ok(!text.includes("x".repeat(MAX_VAULT_INSTRUCTIONS_CHARS + 1)));
});

test("the initialize result carries each user's own instructions", async () => {
  const server = await startMcpServer(vaults.registry);
  try {
    const forWriter = (await server.connect(WRITER_TOKEN)).getInstructions() ?? "";
    const forReader = (await server.connect(READER_TOKEN)).getInstructions() ?? "";
    const forSide = (await server.connect(SIDE_ONLY_TOKEN)).getInstructions() ?? "";
    assert.match(forWriter, /Vaults you can use: "edge", "side"/);
    assert.match(forReader, /read-only/);
    assert.match(forSide, /Vaults you can use: "side"\./);
  } finally {
    await server.close();
  }
});
