// The snippets a user pastes into each MCP client to reach this server (README, settings tab,
// "Copy MCP client config" command). Pure text: the caller decides whether a real token goes in.

export type ClientKind = "claude-code" | "claude-desktop" | "cursor" | "codex";

export const CLIENT_KINDS: readonly ClientKind[] = ["claude-code", "claude-desktop", "cursor", "codex"];

export const CLIENT_LABELS: Readonly<Record<ClientKind, string>> = {
  "claude-code": "Claude Code",
  "claude-desktop": "Claude Desktop",
  cursor: "Cursor",
  codex: "Codex",
};

export const TOKEN_PLACEHOLDER = "TOKEN";
export const SERVER_KEY = "secondbrain";

export interface ClientConfig {
  kind: ClientKind;
  /** Where the snippet goes, for the user. */
  where: string;
  text: string;
}

export function clientConfig(kind: ClientKind, url: string, token: string = TOKEN_PLACEHOLDER): ClientConfig {
  const bearer = `Bearer ${token}`;
  switch (kind) {
    case "claude-code":
      return {
        kind,
        where: "Run in a terminal",
        text: `claude mcp add --transport http ${SERVER_KEY} ${url} --header "Authorization: ${bearer}"`,
      };
    case "claude-desktop":
      // Claude Desktop launches local processes; mcp-remote bridges them to Streamable HTTP.
      return {
        kind,
        where: "claude_desktop_config.json",
        text: JSON.stringify(
          {
            mcpServers: {
              [SERVER_KEY]: {
                command: "npx",
                args: ["-y", "mcp-remote", url, "--transport", "http-only", "--header", "Authorization:${AUTH_HEADER}"],
                env: { AUTH_HEADER: bearer },
              },
            },
          },
          null,
          2,
        ),
      };
    case "cursor":
      return {
        kind,
        where: "~/.cursor/mcp.json",
        text: JSON.stringify({ mcpServers: { [SERVER_KEY]: { url, headers: { Authorization: bearer } } } }, null, 2),
      };
    case "codex":
      return {
        kind,
        where: "~/.codex/config.toml (export SECONDBRAIN_TOKEN first)",
        text: `[mcp_servers.${SERVER_KEY}]\nurl = "${url}"\nbearer_token_env_var = "SECONDBRAIN_TOKEN"\n\n# export SECONDBRAIN_TOKEN=${token}`,
      };
  }
}
