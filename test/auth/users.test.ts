import { test } from "node:test";
import assert from "node:assert/strict";
import { hashToken } from "../../src/auth/tokens";
import { DEFAULT_USER_NAME, defaultUser, UserStore } from "../../src/auth/users";

const alice = { name: "alice", token_hashes: [hashToken("alice-token-1"), hashToken("alice-token-2")], vaults: [], read_only: false };
const bob = { name: "bob", token_hashes: [hashToken("bob-token")], vaults: ["work"], read_only: true };

test("authenticate maps each of a user's tokens to that user", () => {
  const store = new UserStore([alice, bob]);
  assert.deepEqual(store.authenticate("alice-token-1"), { name: "alice", readOnly: false, vaults: [] });
  assert.deepEqual(store.authenticate("alice-token-2"), { name: "alice", readOnly: false, vaults: [] });
  assert.deepEqual(store.authenticate("bob-token"), { name: "bob", readOnly: true, vaults: ["work"] });
});

test("unknown, empty and hash-as-token inputs are refused", () => {
  const store = new UserStore([alice, bob]);
  assert.equal(store.authenticate("nobody"), null);
  assert.equal(store.authenticate(""), null);
  assert.equal(store.authenticate(hashToken("bob-token")), null);
  assert.equal(new UserStore([]).authenticate("alice-token-1"), null);
});

test("users() lists every user without any token material", () => {
  const store = new UserStore([alice, bob]);
  assert.deepEqual(store.users().map((user) => user.name), ["alice", "bob"]);
  assert.ok(!JSON.stringify(store.users()).includes(hashToken("bob-token")));
});

test("defaultUser is a read-write user of every vault holding only the token's hash", () => {
  const record = defaultUser("sbm_secret");
  assert.deepEqual(record, { name: DEFAULT_USER_NAME, token_hashes: [hashToken("sbm_secret")], vaults: [], read_only: false });
  assert.equal(new UserStore([record]).authenticate("sbm_secret")?.name, DEFAULT_USER_NAME);
});

test("a user's toolsets reach the UserInfo; without them none is set, and defaultUser takes them", () => {
  const carol = { name: "carol", token_hashes: [hashToken("carol-token")], vaults: [], read_only: false, toolsets: ["find" as const, "history" as const] };
  const store = new UserStore([alice, carol]);
  assert.deepEqual(store.authenticate("carol-token")?.toolsets, ["find", "history"]);
  assert.ok(!("toolsets" in (store.authenticate("alice-token-1") ?? {})));
  assert.deepEqual(defaultUser("sbm_secret", ["find"]).toolsets, ["find"]);
});
