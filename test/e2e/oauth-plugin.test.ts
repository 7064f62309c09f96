// OAuth sign-in against the built plugin in the stand-in, the browser's part done with fetch: the
// approval modal names the client (as self-declared), the user and its vaults; Allow signs the
// client in, and the sign-in survives a restart of the plugin with only hashes in data.json; Revoke
// in the settings tab stops the token at once; Deny and closing the modal send access_denied.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { openModals, type Modal } from "../obsidian-stand-in/ui/modal";
import { closeSettingTab, openSettingTab } from "../obsidian-stand-in/ui/setting-tab";
import { found, within } from "../support/poll";
import { startPlugin, type PluginHarness } from "../support/plugin";
import { EDGE_VAULT, tempVault } from "../support/vaults";

const REDIRECT = "http://127.0.0.1:5125/callback";
const OAUTH = { oauth: { enabled: true } };

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

function post(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
}

async function register(origin: string, name: string): Promise<string> {
  const response = await fetch(`${origin}/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: name }) });
  assert.equal(response.status, 201);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** Opens the authorize page as the browser would; returns the page's token and the modal Obsidian showed. */
async function openApproval(origin: string, clientId: string, challenge: string): Promise<{ token: string; modal: Modal }> {
  const before = new Set(openModals);
  const params = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256", state: "plugin-state" };
  const page = await fetch(`${origin}/authorize?${new URLSearchParams(params).toString()}`);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /Approve in Obsidian/);
  const token = /name="approval" value="([^"]+)"/.exec(html)?.[1];
  assert.ok(token);
  const modal = await found(5000, "Obsidian shows the approval modal", () => Promise.resolve(openModals.find((open) => !before.has(open) && open.contentEl.classList.contains("secondbrain-approval"))));
  return { token, modal };
}

function click(modal: Modal, cls: string): void {
  const button = modal.contentEl.querySelector<HTMLButtonElement>(`button.${cls}`);
  assert.ok(button, `the modal has its ${cls} button`);
  button.click();
}

/** The page's submit once decided: where the browser is sent. */
async function finish(origin: string, token: string): Promise<URL> {
  await within(5000, "the decision reaches the status endpoint", async () => ((await (await post(`${origin}/authorize/status`, { approval: token })).json()) as { status: string }).status !== "pending");
  const response = await post(`${origin}/authorize`, { approval: token });
  assert.equal(response.status, 302);
  return new URL(String(response.headers.get("location")));
}

async function mcpStatus(url: string, token: string): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  await response.text();
  return response.status;
}

test("with OAuth off (the default) the plugin offers no discovery and no sign-in", async () => {
  const harness = await startPlugin({ fixture: EDGE_VAULT });
  try {
    const origin = new URL(harness.url).origin;
    assert.equal((await fetch(`${origin}/.well-known/oauth-authorization-server`)).status, 404);
    assert.equal((await fetch(`${origin}/register`, { method: "POST", body: "{}" })).status, 404);
  } finally {
    await harness.stop();
  }
});

test("Allow in Obsidian's modal signs the client in as the settings' user; a restart keeps the sign-in; Revoke in the settings tab stops it at once", async () => {
  const vault = tempVault(EDGE_VAULT);
  let harness: PluginHarness | null = null;
  try {
    harness = await startPlugin({ fixture: EDGE_VAULT, vault, settings: { ...OAUTH, vaults: [{ name: "work", folder: "wiki" }] } });
    const origin = new URL(harness.url).origin;
    const discovery = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as { issuer: string; registration_endpoint: string };
    assert.equal(discovery.issuer, origin);
    assert.equal(discovery.registration_endpoint, `${origin}/register`);

    const clientId = await register(origin, "Desk <App>");
    const { verifier, challenge } = pkce();
    const { token, modal } = await openApproval(origin, clientId, challenge);
    const text = modal.contentEl.textContent ?? "";
    assert.match(text, /Desk <App>/);
    assert.match(text, /chose this name itself/, "the name is marked as the client's own claim");
    assert.match(text, /act as tester/);
    assert.match(text, /Vaults: default, work/);
    assert.match(text, /returns to 127\.0\.0\.1:5125/);
    click(modal, "secondbrain-approval-allow");
    assert.ok(!openModals.includes(modal), "the modal closes on a decision");

    const location = await finish(origin, token);
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
    assert.equal(location.searchParams.get("state"), "plugin-state");
    const code = location.searchParams.get("code") ?? "";
    const issued = await post(`${origin}/token`, { grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId });
    assert.equal(issued.status, 200);
    const tokens = (await issued.json()) as { access_token: string; refresh_token: string };
    const client = await harness.connect(tokens.access_token);
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === "note_read"));

    await harness.unload();
    await harness.plugin.dataSaved();
    const saved = readFileSync(path.join(vault.dir, harness.pluginDir, "data.json"), "utf8");
    for (const secret of [tokens.access_token, tokens.refresh_token, code, verifier, token]) assert.ok(!saved.includes(secret), "data.json holds no code or token in plaintext");
    assert.ok(saved.includes(createHash("sha256").update(tokens.access_token).digest("hex")), "data.json holds the access token's SHA-256");

    harness = await startPlugin({ fixture: EDGE_VAULT, vault, keepData: true });
    assert.equal(await mcpStatus(harness.url, tokens.access_token), 200, "the sign-in survives a restart");
    const tab = harness.app.setting.tabs[0] as Parameters<typeof openSettingTab>[0];
    const container = openSettingTab(tab);
    const row = container.querySelector<HTMLElement>(`.secondbrain-oauth-client[data-client-id="${clientId}"]`);
    assert.ok(row, "the settings tab lists the signed-in client");
    assert.equal(row.dataset.oauthUser, "tester");
    assert.equal(row.querySelector(".setting-item-name")?.textContent, "Desk <App>");
    assert.match(row.querySelector(".setting-item-description")?.textContent ?? "", /As tester · last used /);
    const revoke = Array.from(row.querySelectorAll("button")).find((button) => button.textContent === "Revoke");
    assert.ok(revoke);
    revoke.click();
    await within(5000, "the revoked client leaves the list", () => container.querySelector(`.secondbrain-oauth-client[data-client-id="${clientId}"]`) === null);
    assert.equal(await mcpStatus(harness.url, tokens.access_token), 401, "the revoked token is refused at once");
    const refreshed = await post(`${new URL(harness.url).origin}/token`, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
    assert.equal(refreshed.status, 400);
    assert.match(container.textContent ?? "", /No application is signed in/);
    closeSettingTab(tab);
  } finally {
    await harness?.stop();
    vault.cleanup();
  }
});

test("Deny in the modal, or closing it, sends the browser back with access_denied; a decided request is not decided again", async () => {
  const harness = await startPlugin({ fixture: EDGE_VAULT, settings: OAUTH });
  try {
    const origin = new URL(harness.url).origin;
    const clientId = await register(origin, "Denied App");
    const first = await openApproval(origin, clientId, pkce().challenge);
    click(first.modal, "secondbrain-approval-deny");
    const denied = await finish(origin, first.token);
    assert.equal(denied.searchParams.get("error"), "access_denied");
    assert.equal(denied.searchParams.get("state"), "plugin-state");
    assert.equal(denied.searchParams.get("code"), null);
    assert.equal((await post(`${origin}/authorize`, { approval: first.token })).status, 400, "the page's token is spent");

    const second = await openApproval(origin, clientId, pkce().challenge);
    second.modal.close();
    assert.equal((await finish(origin, second.token)).searchParams.get("error"), "access_denied");
  } finally {
    await harness.stop();
  }
});

test("no decision within the approval time: the modal goes away undecided and the page's submit says it timed out", async () => {
  const harness = await startPlugin({ fixture: EDGE_VAULT, settings: { oauth: { enabled: true, approvalSeconds: 1 } } });
  try {
    const origin = new URL(harness.url).origin;
    const clientId = await register(origin, "Slow App");
    const { token, modal } = await openApproval(origin, clientId, pkce().challenge);
    await within(5000, "the modal closes when the time is up", () => !openModals.includes(modal));
    await within(5000, "the status says expired", async () => ((await (await post(`${origin}/authorize/status`, { approval: token })).json()) as { status: string }).status === "expired");
    const late = await post(`${origin}/authorize`, { approval: token });
    assert.equal(late.status, 400);
    assert.match(await late.text(), /timed out/);
  } finally {
    await harness.stop();
  }
});

test("with several users and none chosen for sign-ins, the page says to choose one in the settings and no modal opens", async () => {
  const users = [
    { name: "alice", token_hashes: [], vaults: [], read_only: false, created: 1 },
    { name: "bob", token_hashes: [], vaults: [], read_only: true, created: 1 },
  ];
  const harness = await startPlugin({ fixture: EDGE_VAULT, noUser: true, settings: { ...OAUTH, users } });
  try {
    const origin = new URL(harness.url).origin;
    const clientId = await register(origin, "Two Users App");
    const modals = openModals.length;
    const params = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: "S256" };
    const page = await fetch(`${origin}/authorize?${new URLSearchParams(params).toString()}`);
    assert.equal(page.status, 503);
    assert.match(await page.text(), /choose one under/);
    assert.equal(openModals.length, modals);
  } finally {
    await harness.stop();
  }
});

test("removing the user in the settings tab revokes its sign-ins, and a new user of the same name does not get them back", async () => {
  const harness = await startPlugin({ fixture: EDGE_VAULT, settings: OAUTH });
  try {
    const origin = new URL(harness.url).origin;
    const clientId = await register(origin, "Removed User App");
    const { verifier, challenge } = pkce();
    const { token, modal } = await openApproval(origin, clientId, challenge);
    click(modal, "secondbrain-approval-allow");
    const code = (await finish(origin, token)).searchParams.get("code") ?? "";
    const tokens = (await (await post(`${origin}/token`, { grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId })).json()) as { access_token: string };
    assert.equal(await mcpStatus(harness.url, tokens.access_token), 200);

    const tab = harness.app.setting.tabs[0] as Parameters<typeof openSettingTab>[0];
    const container = openSettingTab(tab);
    const userRow = container.querySelector<HTMLElement>('.setting-item[data-user="tester"]');
    assert.ok(userRow);
    userRow.querySelector<HTMLElement>('.extra-setting-button[aria-label="Remove user"]')!.click();
    await within(5000, "the user is gone", () => container.querySelector('.setting-item[data-user="tester"]') === null);
    const addUser = Array.from(container.querySelectorAll<HTMLElement>(".setting-item")).find((el) => el.querySelector(".setting-item-name")?.textContent === "Add user")!;
    const input = addUser.querySelector<HTMLInputElement>("input[type=text]")!;
    input.value = "tester";
    input.dispatchEvent(new window.Event("input"));
    Array.from(addUser.querySelectorAll("button")).find((button) => button.textContent === "Add")!.click();
    await within(5000, "the user is back", () => container.querySelector('.setting-item[data-user="tester"]') !== null);
    assert.equal(await mcpStatus(harness.url, tokens.access_token), 401, "the removed user's sign-in stays revoked");
    closeSettingTab(tab);
  } finally {
    await harness.stop();
  }
});
