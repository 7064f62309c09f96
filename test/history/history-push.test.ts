// Pushing the history to a remote: a real smart-HTTP git server (git-http-backend behind a Node HTTP
// server that checks the token), commits pushed in the background; a refused push is logged without
// the token and never fails the write.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { EDGE_VAULT } from "../support/vaults";
import { startTestServer } from "../support/server";

const BACKEND = "/usr/lib/git-core/git-http-backend";
const TOKEN = "push-token-0123456789abcdef";

interface GitServer {
  url: string;
  root: string;
  close(): Promise<void>;
}

async function startGitServer(): Promise<GitServer> {
  const root = mkdtempSync(path.join(os.tmpdir(), "sb-remote-"));
  spawnSync("git", ["init", "--quiet", "--bare", "--initial-branch=main", path.join(root, "notes.git")], { stdio: "ignore" });
  spawnSync("git", ["--git-dir", path.join(root, "notes.git"), "config", "http.receivepack", "true"], { stdio: "ignore" });
  const server: Server = createServer((req, res) => {
    const auth = req.headers.authorization ?? "";
    const password = auth.startsWith("Basic ") ? Buffer.from(auth.slice(6), "base64").toString("utf8").split(":").slice(1).join(":") : "";
    if (password !== TOKEN) {
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' }).end();
      return;
    }
    const url = new URL(req.url ?? "/", "http://localhost");
    const cgi = spawn(BACKEND, [], {
      env: {
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        REQUEST_METHOD: req.method ?? "GET",
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        REMOTE_USER: "tester",
        REMOTE_ADDR: "127.0.0.1",
        ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] } : {}),
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      headersDone = true;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on("end", () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/notes.git`,
    root,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        rmSync(root, { recursive: true, force: true });
      }),
  };
}

function remoteLog(root: string): string {
  const result = spawnSync("git", ["--git-dir", path.join(root, "notes.git"), "log", "-1", "--format=%B", "main"], { encoding: "utf8" });
  return result.status === 0 ? result.stdout : "";
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test("commits are pushed to the remote in the background, with the token", { skip: !existsSync(BACKEND) && "git-http-backend is not installed" }, async () => {
  const remote = await startGitServer();
  const server = await startTestServer({ fixture: EDGE_VAULT, extra: { history: { remote: { url: remote.url, token: TOKEN } } } });
  try {
    const created = await server.call("note_create", { path: "wiki/pushed.md", content: "pushed\n", reason: "to the remote" });
    assert.equal(created.isError, false, created.text);
    await until(() => remoteLog(remote.root).startsWith("note_create: wiki/pushed.md"), "the push of the commit");
    assert.match(remoteLog(remote.root), /^note_create: wiki\/pushed\.md\n\nto the remote\n\nVia: test-client\nUser: default\n/);
    assert.ok(server.logs.some((line) => line.includes('"event":"history_pushed"')));
    assert.ok(!server.logs.some((line) => line.includes(TOKEN)), "the token is never logged");
  } finally {
    await server.stop();
    await remote.close();
  }
});

test("a refused push is logged without the token and the write still succeeds", { skip: !existsSync(BACKEND) && "git-http-backend is not installed" }, async () => {
  const remote = await startGitServer();
  const wrong = "wrong-token-abcdef0123456789";
  const server = await startTestServer({ fixture: EDGE_VAULT, extra: { history: { remote: { url: remote.url, token: wrong } } } });
  try {
    const created = await server.call("note_create", { path: "wiki/unpushed.md", content: "stays local\n", reason: "remote refuses" });
    assert.equal(created.isError, false, created.text);
    await until(() => server.logs.some((line) => line.includes('"event":"history_push_failed"')), "the failed push to be logged");
    assert.equal(remoteLog(remote.root), "", "nothing reached the remote");
    assert.ok(!server.logs.some((line) => line.includes(wrong)), "the token is never logged");
    const history = await server.call("note_history", { path: "wiki/unpushed.md" });
    assert.equal((history.structured.revisions as unknown[]).length, 1, "the local history has the commit");
  } finally {
    await server.stop();
    await remote.close();
  }
});
