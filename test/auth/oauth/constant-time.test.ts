// The comparisons of secrets and bindings go through the crypto port's constant-time equal, with no
// early exit over the registered redirect URIs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { checkAuthorizeRequest } from "../../../src/auth/oauth/authorize";
import { nodeOAuthCrypto } from "../../../src/auth/oauth/node-crypto";
import type { OAuthCrypto } from "../../../src/auth/oauth/ports";
import { OAuthService } from "../../../src/auth/oauth/service";

function counting(): { crypto: OAuthCrypto; compared: Array<[string, string]> } {
  const compared: Array<[string, string]> = [];
  return {
    compared,
    crypto: {
      ...nodeOAuthCrypto,
      equal: (a, b) => {
        compared.push([a, b]);
        return nodeOAuthCrypto.equal(a, b);
      },
    },
  };
}

const quiet = { log: (): void => undefined };

test("the redirect URI is compared with every registered one in constant time, also after a match", async () => {
  const { crypto, compared } = counting();
  const service = await OAuthService.open({ crypto, logger: quiet });
  const uris = ["https://a.example/cb", "https://b.example/cb", "https://c.example/cb"];
  const client = await service.registerClient({ redirect_uris: uris });
  const challenge = "A".repeat(43);
  const query = { client_id: client.client_id, redirect_uri: uris[0], response_type: "code", code_challenge: challenge, code_challenge_method: "S256" };
  assert.equal(checkAuthorizeRequest(query, service.clients, crypto.equal, "https://issuer.example").kind, "ok");
  assert.deepEqual(compared, uris.map((uri) => [uri, uris[0]]));
});

test("the token endpoint compares client, redirect URI and PKCE digest through the constant-time equal", async () => {
  const { crypto, compared } = counting();
  const service = await OAuthService.open({ crypto, logger: quiet });
  const client = await service.registerClient({ redirect_uris: ["https://a.example/cb"] });
  const verifier = "v".repeat(43);
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const code = await service.issueCode({ client_id: client.client_id, user: "alice", redirect_uri: "https://a.example/cb", code_challenge: challenge });
  compared.length = 0;
  const outcome = await service.exchange({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: client.client_id, redirect_uri: "https://a.example/cb" }, () => true);
  assert.equal(outcome.ok, true);
  assert.deepEqual(compared, [
    [client.client_id, client.client_id],
    ["https://a.example/cb", "https://a.example/cb"],
    [challenge, challenge],
  ]);
});
