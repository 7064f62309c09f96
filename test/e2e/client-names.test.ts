// The history names the client of each edit exactly, when several clients share one user: a
// 2026-07-28 client names itself in every request, a 2025 client through the user's last initialize.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client as ModernClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { callTool, startTestServer, type ToolCallResult } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

async function modernCall(client: ModernClient, name: string, args: Record<string, unknown>): Promise<ToolCallResult> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text?: string }>;
  return { isError: result.isError === true, text: content.map((part) => part.text ?? "").join("\n"), structured: (result.structuredContent ?? {}) as Record<string, unknown> };
}

test("note_history names each client of one user: two 2026-07-28 clients by their own clientInfo, a 2025 one by its initialize", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  const modern: ModernClient[] = [];
  try {
    const connectModern = async (name: string): Promise<ModernClient> => {
      const client = new ModernClient({ name, version: "2.0.0" }, { versionNegotiation: { mode: "auto" } });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } }));
      modern.push(client);
      assert.equal(client.getProtocolEra(), "modern");
      return client;
    };
    // All three connect before anyone edits: under one user, a name remembered from the last connect would be the wrong one for two of them.
    const editor = await connectModern("Modern Editor");
    const legacy = await server.connect(server.token, "Legacy Editor");
    const reviewer = await connectModern("Modern Reviewer");

    const path = "wiki/shared.md";
    const created = await modernCall(editor, "note_create", { path, content: "# Shared\n\nOne.\n", reason: "start the note" });
    assert.equal(created.isError, false, created.text);
    const second = await callTool(legacy, "note_edit", { path, old_string: "One.", new_string: "One. Two.", content_hash: created.structured.content_hash, reason: "legacy edit" });
    assert.equal(second.isError, false, second.text);
    const third = await modernCall(reviewer, "note_edit", { path, old_string: "Two.", new_string: "Two. Three.", content_hash: second.structured.content_hash, reason: "review" });
    assert.equal(third.isError, false, third.text);
    const fourth = await modernCall(editor, "note_edit", { path, old_string: "Three.", new_string: "Three. Four.", content_hash: third.structured.content_hash, reason: "editor again" });
    assert.equal(fourth.isError, false, fourth.text);

    const history = await modernCall(reviewer, "note_history", { path });
    assert.equal(history.isError, false, history.text);
    const revisions = history.structured.revisions as Array<{ reason?: string; via?: string; user?: string }>;
    assert.deepEqual(
      revisions.map((revision) => [revision.reason, revision.via, revision.user]),
      [
        ["editor again", "Modern Editor", "default"],
        ["review", "Modern Reviewer", "default"],
        ["legacy edit", "Legacy Editor", "default"],
        ["start the note", "Modern Editor", "default"],
      ],
    );
  } finally {
    for (const client of modern) await client.close().catch(() => undefined);
    await server.stop();
  }
});
