// The headless command line (SPEC §13): serve a vault folder over MCP, rebuild its index, or show
// the resolved configuration.
import { describeFailure } from "./core/errors";
import { endpointProblem } from "./core/search/semantic/provider";
import { promises as fs } from "node:fs";
import path from "node:path";
import { ConfigError, defaultToken, loadConfigFile, onDeviceModels, parseListenAddress, type AppConfig } from "./auth/config";
import { DEFAULT_MODEL_SOURCE, downloadSize, formatBytes, pinProblem, type OnDeviceModel } from "./core/search/semantic/on-device-models";
import { downloadModel, downloadPlan, isModelReady, modelFolder } from "./hosts/node/model-download";
import { DEFAULT_BCRYPT_COST, hashPassword, MAX_BCRYPT_COST, MIN_BCRYPT_COST, passwordKind, readPasswordReference } from "./auth/passwords";
import { defaultUser, type UserRecord } from "./auth/users";
import { VAULT_NAME } from "./core/vault/directory";
import { DEFAULT_MAX_RESPONSE_BYTES, HeadlessServer, type HeadlessHistory, type HeadlessMetrics, type HeadlessOptions, type HeadlessVault } from "./hosts/node/headless";
import { DEFAULT_METRICS_PATH } from "./http/metrics";
import { defaultDataDir } from "./hosts/node/host";
import { JsonLineLogger } from "./hosts/node/services";
import { serveStdio } from "./hosts/node/stdio";
import { VERSION } from "./hosts/node/version";
import { askForRevocation, readSignIns, revocationWaiting, revokeOffline, runningServers } from "./hosts/node/sign-ins";
import type { LogLevel } from "./core/ports";
import { ALL_TOOLSETS, chosenToolsets, toolsetProblem } from "./tools/toolsets";
import type { ToolGroup } from "./tools/types";

const DEFAULT_PORT = 27125;
const DEFAULT_HOST = "127.0.0.1";

const USAGE = `secondbrain-mcp ${VERSION}

Usage:
  secondbrain-mcp serve    --vault [NAME=]DIR [--vault …] [--data DIR] [--host 127.0.0.1] [--port ${DEFAULT_PORT}]
                           [--config FILE] [--stdio] [--toolsets LIST] [--no-history] [--log-level info] [--audit-file FILE]
                           [--metrics] [--metrics-listen [HOST:]PORT]
  secondbrain-mcp reindex  --vault [NAME=]DIR [--vault …] [--data DIR]
  secondbrain-mcp validate --vault [NAME=]DIR [--vault …] [--data DIR] [--config FILE]
  secondbrain-mcp models list [--config FILE] [--data DIR]
  secondbrain-mcp models download [ID] [--config FILE] [--data DIR] [--source URL]
                           fetches an on-device embedding model (embeddings: kind: on-device; ID defaults
                           to the config's model) into DIR/models or embeddings.models_folder: its size
                           first, progress on stderr, each file checked against its pinned SHA-256
  secondbrain-mcp sign-ins [--data DIR]
                           lists the clients signed in through OAuth: user, client name, client id, last use
  secondbrain-mcp sign-ins revoke --client ID --user NAME [--data DIR]
                           signs that client out for that user (its tokens go at once); a running serve of
                           the data folder is asked to do it, by a request file and SIGHUP
  secondbrain-mcp hash-password [--cost ${DEFAULT_BCRYPT_COST}]
                           reads a password from stdin (hidden at a terminal) and prints its bcrypt hash,
                           for a user's password: in the config file

Toolsets (--toolsets, comma-separated; default all): the tool groups the default user is offered,
  of find, write, maintain, history. A config file's users set theirs with toolsets: [...].

Metrics (off by default): --metrics serves Prometheus text at /metrics on the MCP port; --metrics-listen
  serves it on a listener of its own instead (127.0.0.1 unless HOST is given). A key: metrics.key in the
  config file.

Environment:
  SECONDBRAIN_TOKEN   bearer token of the default user (without --config); generated when unset
`;

class UsageError extends Error {}

interface CliArgs {
  command: string;
  vaults: HeadlessVault[];
  data: string;
  host?: string;
  port?: number;
  config?: string;
  stdio: boolean;
  history: boolean;
  logLevel: LogLevel;
  auditFile?: string;
  /** The default user's toolsets; undefined is every toolset. */
  toolsets?: ToolGroup[];
  toolsetsGiven: boolean;
  /** hash-password's bcrypt cost. */
  cost: number;
  metrics: boolean;
  metricsListen?: { host: string; port: number };
  /** Words after the command that are not options (models list, models download ID). */
  positionals: string[];
  /** models download's hub or mirror, over the config's model_source. */
  source?: string;
  /** sign-ins revoke: which client, for which user. */
  client?: string;
  user?: string;
}

function vaultNameFor(dir: string): string {
  const base = path.basename(path.resolve(dir)).toLowerCase().normalize("NFKD").replace(/[^a-z0-9_-]+/g, "-").replace(/^[-_]+/, "");
  return (base || "vault").slice(0, 64);
}

function parseVault(spec: string): HeadlessVault {
  const eq = spec.indexOf("=");
  const named = eq > 0 && VAULT_NAME.test(spec.slice(0, eq));
  const name = named ? spec.slice(0, eq) : vaultNameFor(spec);
  const root = path.resolve(named ? spec.slice(eq + 1) : spec);
  if (!VAULT_NAME.test(name)) throw new UsageError(`vault name "${name}" must match ${VAULT_NAME.source}; write --vault NAME=DIR`);
  return { name, root };
}

function parseToolsetList(list: string): ToolGroup[] | undefined {
  const names = list.split(",").map((name) => name.trim()).filter((name) => name !== "");
  if (names.length === 0) throw new UsageError(`--toolsets names no toolset; leave it out (or write --toolsets ${ALL_TOOLSETS}) for every toolset`);
  for (const name of names) {
    const problem = toolsetProblem(name, "headless");
    if (problem !== null) throw new UsageError(`--toolsets ${problem}`);
  }
  return chosenToolsets(names);
}

export function parseArgs(argv: readonly string[]): CliArgs {
  const [first = "help", ...others] = argv;
  const command = first === "--help" || first === "-h" ? "help" : first;
  const rest = command === first ? others : [];
  const args: CliArgs = { command, vaults: [], data: process.env.SECONDBRAIN_DATA || defaultDataDir(), stdio: false, history: true, logLevel: "info", toolsetsGiven: false, cost: DEFAULT_BCRYPT_COST, metrics: false, positionals: [] };
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!;
    const value = (): string => {
      const next = rest[i + 1];
      if (next === undefined || next.startsWith("--")) throw new UsageError(`${flag} needs a value`);
      i += 1;
      return next;
    };
    switch (flag) {
      case "--vault":
        args.vaults.push(parseVault(value()));
        break;
      case "--data":
        args.data = path.resolve(value());
        break;
      case "--host":
        args.host = value();
        break;
      case "--port": {
        const port = Number(value());
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError("--port must be a number from 0 to 65535");
        args.port = port;
        break;
      }
      case "--config":
        args.config = path.resolve(value());
        break;
      case "--stdio":
        args.stdio = true;
        break;
      case "--toolsets":
        args.toolsets = parseToolsetList(value());
        args.toolsetsGiven = true;
        break;
      case "--no-history":
        args.history = false;
        break;
      case "--log-level": {
        const level = value();
        if (!["debug", "info", "warn", "error"].includes(level)) throw new UsageError("--log-level is one of debug, info, warn, error");
        args.logLevel = level as LogLevel;
        break;
      }
      case "--metrics":
        args.metrics = true;
        break;
      case "--metrics-listen": {
        const listen = parseListenAddress(value());
        if (listen === null) throw new UsageError("--metrics-listen is a port (9464, on 127.0.0.1) or HOST:PORT (127.0.0.1:9464)");
        args.metricsListen = listen;
        args.metrics = true;
        break;
      }
      case "--audit-file":
        args.auditFile = path.resolve(value());
        break;
      case "--cost": {
        const cost = Number(value());
        if (!Number.isInteger(cost) || cost < MIN_BCRYPT_COST || cost > MAX_BCRYPT_COST) throw new UsageError(`--cost must be a whole number from ${MIN_BCRYPT_COST} to ${MAX_BCRYPT_COST}`);
        args.cost = cost;
        break;
      }
      case "--source":
        args.source = value();
        break;
      case "--client":
        args.client = value();
        break;
      case "--user":
        args.user = value();
        break;
      case "--help":
      case "-h":
        args.command = "help";
        break;
      default:
        if ((command === "models" || command === "sign-ins") && !flag.startsWith("-")) {
          args.positionals.push(flag);
          break;
        }
        throw new UsageError(`unknown option ${flag}`);
    }
  }
  const names = new Set<string>();
  for (const vault of args.vaults) {
    if (names.has(vault.name)) throw new UsageError(`two vaults are named "${vault.name}"; name them with --vault NAME=DIR`);
    names.add(vault.name);
  }
  return args;
}

async function checkVaults(vaults: readonly HeadlessVault[]): Promise<void> {
  if (vaults.length === 0) throw new UsageError("give at least one --vault DIR");
  for (const vault of vaults) {
    const stats = await fs.stat(vault.root).catch(() => null);
    if (!stats?.isDirectory()) throw new UsageError(`vault folder ${vault.root} does not exist or is not a folder`);
  }
}

async function readConfig(args: CliArgs): Promise<AppConfig | null> {
  return args.config ? loadConfigFile(args.config) : null;
}

function clientConfigText(url: string, token: string | null): string {
  const shown = token ?? "$SECONDBRAIN_TOKEN";
  return [
    "Connect Claude Code:",
    `  claude mcp add --transport http secondbrain ${url} --header "Authorization: Bearer ${shown}"`,
    "Other clients: see README.md (Claude Desktop, Cursor, Codex).",
  ].join("\n");
}

/** --toolsets belongs to the default user, who does not exist when the config file names users. */
function checkToolsetsFlag(args: CliArgs): void {
  if (args.toolsetsGiven) throw new UsageError("--toolsets sets the default user's toolsets, and the config file names its own users: give each of them toolsets: [...] there instead");
}

async function serve(args: CliArgs): Promise<void> {
  await checkVaults(args.vaults);
  const config = await readConfig(args);
  const logger = new JsonLineLogger({ level: args.logLevel, file: args.auditFile ?? config?.audit.file });
  if (args.stdio) {
    await serveStdio({ vaults: args.vaults, dataDir: args.data, logger, history: args.history && config?.history.enabled !== false, toolsets: args.toolsets, maxResponseBytes: config?.limits.maxResponseBytes, ...embeddingSettings(args, config) });
    return;
  }
  let users: UserRecord[];
  let shownToken: string | null = null;
  if (config && config.users.length > 0) {
    checkToolsetsFlag(args);
    users = config.users;
  } else {
    const token = defaultToken(process.env);
    users = [defaultUser(token.token, args.toolsets)];
    if (token.generated) shownToken = token.token;
  }
  const host = args.host ?? config?.server.host ?? DEFAULT_HOST;
  if (!["127.0.0.1", "localhost", "::1"].includes(host)) {
    logger.log({ level: "warn", event: "non_loopback_bind", host, reason: "reachable from other machines; use a firewall and per-user tokens" });
  }
  const server = new HeadlessServer({
    vaults: args.vaults,
    dataDir: args.data,
    host,
    port: args.port ?? config?.server.port ?? DEFAULT_PORT,
    users,
    logger,
    allowedOrigins: config?.server.allowedOrigins,
    trustedProxies: config?.server.trustedProxies ?? [],
    rateLimit: config?.server.rateLimit,
    maxResponseBytes: config?.limits.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    history: historySettings(args, config),
    ...embeddingSettings(args, config),
    ...metricsSettings(args, config),
    ...(config?.oauth.enabled
      ? { oauth: { ...(config.server.publicUrl ? { publicUrl: config.server.publicUrl } : {}), clientIdMetadataDocuments: config.oauth.clientIdMetadataDocuments } }
      : {}),
  });
  // Signals are handled before anything is printed, so a client that reacts to the banner at once
  // can never catch the process with the default handler (which would skip the index flush).
  const started = server.start();
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) {
      process.exit(1);
    }
    stopping = true;
    logger.log({ level: "info", event: "signal", signal });
    void started
      .then(() => server.stop())
      .then(() => logger.close())
      .then(() => process.exit(0))
      .catch(() => process.exit(1));
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGHUP", () => {
    void server.applyRevocations();
    if (!args.config) return;
    loadConfigFile(args.config)
      .then((fresh) => {
        server.setUsers(fresh.users.length > 0 ? fresh.users : users);
        logger.log({ level: "info", event: "config_reloaded", users: fresh.users.length });
      })
      .catch((error: unknown) => {
        logger.log({ level: "warn", event: "config_reload_failed", reason: describeFailure(error) });
      });
  });
  await started;
  const url = server.url;
  const lines = [`Second Brain MCP ${VERSION} serving ${args.vaults.map((vault) => `${vault.name} (${vault.root})`).join(", ")}`, `MCP endpoint: ${url}`];
  if (shownToken) lines.push(`Bearer token (shown once; set SECONDBRAIN_TOKEN to choose your own): ${shownToken}`);
  else if (!config) lines.push("Bearer token: the value of SECONDBRAIN_TOKEN");
  lines.push(clientConfigText(url, shownToken));
  process.stdout.write(lines.join("\n") + "\n");
}

/** Where on-device models are downloaded to and loaded from. */
function modelsFolderOf(args: CliArgs, config: AppConfig | null): string {
  return config?.embeddings.modelsFolder ?? path.join(args.data, "models");
}

/** The command that downloads `model` as this server is configured, for messages that ask for it. */
function downloadCommand(args: CliArgs, model: OnDeviceModel): string {
  const quote = (text: string): string => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`);
  const parts = ["secondbrain-mcp", "models", "download", model.id];
  if (args.config) parts.push("--config", quote(args.config));
  if (args.data !== (process.env.SECONDBRAIN_DATA || defaultDataDir())) parts.push("--data", quote(args.data));
  return parts.join(" ");
}

/** The config file's embeddings section, its API key read from the variable it names. */
function embeddingSettings(args: CliArgs, config: AppConfig | null): Pick<HeadlessOptions, "embeddings"> {
  const embeddings = config?.embeddings;
  if (embeddings?.enabled && embeddings.kind === "on-device" && embeddings.model !== undefined) {
    const model = onDeviceModels(embeddings)[embeddings.model]!;
    return {
      embeddings: {
        kind: "on-device",
        model,
        modelsFolder: modelsFolderOf(args, config),
        downloadHint: `run \`${downloadCommand(args, model)}\` (${pinProblem(model) === null ? formatBytes(downloadSize(model)) : "after pinning it"}); search stays lexical until then`,
        ...(embeddings.batchSize !== undefined ? { batchSize: embeddings.batchSize } : {}),
      },
    };
  }
  if (!embeddings?.enabled || embeddings.url === undefined || embeddings.model === undefined) return {};
  const apiKey = embeddings.apiKeyEnv !== undefined ? process.env[embeddings.apiKeyEnv] : undefined;
  if (embeddings.apiKeyEnv !== undefined && (apiKey === undefined || apiKey === "")) {
    throw new UsageError(`embeddings.api_key_env names ${embeddings.apiKeyEnv}, which is not set; export it or remove embeddings.api_key_env`);
  }
  return {
    embeddings: {
      url: embeddings.url,
      model: embeddings.model,
      ...(apiKey ? { apiKey } : {}),
      ...(embeddings.batchSize !== undefined ? { batchSize: embeddings.batchSize } : {}),
      ...(embeddings.timeoutMs !== undefined ? { timeoutMs: embeddings.timeoutMs } : {}),
      ...(embeddings.requestsPerMinute !== undefined ? { requestsPerMinute: embeddings.requestsPerMinute } : {}),
      ...(embeddings.queryPrefix !== undefined ? { queryPrefix: embeddings.queryPrefix } : {}),
      ...(embeddings.passagePrefix !== undefined ? { passagePrefix: embeddings.passagePrefix } : {}),
    },
  };
}

/** On with --metrics, --metrics-listen or metrics.enabled; the flag's listener wins over the file's. */
function metricsSettings(args: CliArgs, config: AppConfig | null): { metrics?: HeadlessMetrics } {
  const file = config?.metrics;
  if (!args.metrics && !file?.enabled) return {};
  const listen = args.metricsListen ?? file?.listen;
  return { metrics: { path: file?.path ?? DEFAULT_METRICS_PATH, ...(file?.key !== undefined ? { key: file.key } : {}), ...(listen ? { listen } : {}) } };
}

/** `--no-history` wins; the config file may turn the history off, name its author and a remote. */
function historySettings(args: CliArgs, config: AppConfig | null): HeadlessOptions["history"] {
  if (!args.history || config?.history.enabled === false) return false;
  const history = config?.history;
  if (!history) return true;
  const settings: HeadlessHistory = {};
  if (history.author) settings.author = history.author;
  if (history.remote) {
    const token = history.tokenEnv !== undefined ? process.env[history.tokenEnv] : undefined;
    if (history.tokenEnv !== undefined && (token === undefined || token === "")) {
      throw new UsageError(`history.token_env names ${history.tokenEnv}, which is not set; export it or remove history.token_env`);
    }
    settings.remote = { url: history.remote, ...(token ? { token } : {}), ...(history.username ? { username: history.username } : {}) };
  }
  return settings;
}

async function reindex(args: CliArgs): Promise<void> {
  await checkVaults(args.vaults);
  const logger = new JsonLineLogger({ level: args.logLevel });
  const server = new HeadlessServer({ vaults: args.vaults, dataDir: args.data, host: DEFAULT_HOST, port: 0, users: [], logger, watch: false, history: false });
  for (const host of server.hosts) {
    await host.engine.discardSnapshot();
    const report = await host.start({ recover: false });
    await host.stop();
    process.stdout.write(`${host.engine.name}: indexed ${report.reingested} files in ${report.duration_ms} ms\n`);
  }
}

/**
 * Whether a user can sign in with a password: where it comes from and, for a reference, whether it
 * can be read now (an unset variable refuses every sign-in). Never the value, never the hash.
 */
async function passwordShown(setting: string | undefined): Promise<{ source: string; readable: boolean } | null> {
  if (setting === undefined) return null;
  const source = passwordKind(setting);
  return { source, readable: source === "bcrypt" || (await readPasswordReference(setting)) !== null };
}

async function validate(args: CliArgs): Promise<void> {
  await checkVaults(args.vaults);
  const config = await readConfig(args);
  // The token serve would refuse is refused here too; a config file's users make it unused.
  if (!config || config.users.length === 0) defaultToken(process.env);
  else checkToolsetsFlag(args);
  const resolved = {
    version: VERSION,
    vaults: args.vaults,
    default_vault: args.vaults[0]?.name,
    data_dir: args.data,
    server: {
      host: args.host ?? config?.server.host ?? DEFAULT_HOST,
      port: args.port ?? config?.server.port ?? DEFAULT_PORT,
      allowed_origins: config?.server.allowedOrigins ?? [],
      rate_limit: config?.server.rateLimit ?? null,
      public_url: config?.server.publicUrl ?? null,
      trusted_proxies: config?.server.trustedProxies ?? [],
    },
    oauth: { enabled: config?.oauth.enabled ?? false, client_id_metadata_documents: config?.oauth.clientIdMetadataDocuments ?? false },
    metrics: metricsSummary(args, config),
    embeddings: await embeddingsSummary(args, config),
    limits: { max_response_bytes: config?.limits.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES },
    audit: { file: args.auditFile ?? config?.audit.file ?? null },
    users: config && config.users.length > 0
      ? await Promise.all(
          config.users.map(async (user) => ({
            name: user.name,
            tokens: user.token_hashes.length,
            password: await passwordShown(user.password),
            vaults: user.vaults,
            read_only: user.read_only,
            toolsets: user.toolsets ?? ALL_TOOLSETS,
          })),
        )
      : [{ name: "default", tokens: 1, token_source: process.env.SECONDBRAIN_TOKEN ? "SECONDBRAIN_TOKEN" : "generated at start", password: null, vaults: [], read_only: false, toolsets: args.toolsets ?? ALL_TOOLSETS }],
  };
  process.stdout.write(JSON.stringify(resolved, null, 2) + "\n");
}

/** Lines typed at the terminal, one per prompt, without echoing them; Ctrl-C ends the command. */
function readHidden(prompts: readonly string[]): Promise<string[]> {
  const input = process.stdin;
  const lines: string[] = [];
  let typed = "";
  // Raw before the prompt: a key pressed as soon as the prompt shows is not echoed either.
  input.setRawMode(true);
  input.setEncoding("utf8");
  process.stderr.write(prompts[0] ?? "");
  return new Promise((resolve) => {
    const onData = (chunk: string): void => {
      for (const character of chunk) {
        if (character === "\u0003") {
          input.setRawMode(false);
          process.stderr.write("\n");
          process.exit(130);
        }
        if (character === "\r" || character === "\n" || character === "\u0004") {
          process.stderr.write("\n");
          lines.push(typed);
          typed = "";
          if (lines.length === prompts.length) {
            input.off("data", onData);
            input.setRawMode(false);
            input.pause();
            resolve(lines);
            return;
          }
          process.stderr.write(prompts[lines.length]!);
        } else if (character === "\u007f" || character === "\b") {
          typed = [...typed].slice(0, -1).join("");
        } else {
          typed += character;
        }
      }
    };
    input.on("data", onData);
    input.resume();
  });
}

/** stdin up to its end, one trailing newline dropped (what `echo` or a file adds). */
async function readPiped(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

async function hashPasswordCommand(args: CliArgs): Promise<void> {
  let password: string;
  if (process.stdin.isTTY) {
    const [first = "", again] = await readHidden(["Password: ", "Again: "]);
    if (again !== first) throw new UsageError("the two passwords differ; run hash-password again");
    password = first;
  } else {
    password = await readPiped();
  }
  if (password === "") throw new UsageError("hash-password read an empty password; type one, or pipe it in (printf '%s' \"$PASSWORD\" | secondbrain-mcp hash-password)");
  // bcrypt reads 72 bytes at most: a longer password is accepted by its first 72 bytes alone.
  if (Buffer.byteLength(password, "utf8") > 72) process.stderr.write("secondbrain-mcp: warning: only the first 72 bytes of this password count (a bcrypt limit)\n");
  process.stdout.write(`${await hashPassword(password, args.cost)}\n`);
}

/** The embeddings section as validate shows it: the endpoint's key only as the variable's name and whether it is set. */
async function embeddingsSummary(args: CliArgs, config: AppConfig | null): Promise<Record<string, unknown> | "off"> {
  const embeddings = config?.embeddings;
  if (!embeddings?.enabled) return "off";
  if (embeddings.kind === "on-device") {
    const model = onDeviceModels(embeddings)[embeddings.model ?? ""]!;
    const folder = modelsFolderOf(args, config);
    const problem = pinProblem(model);
    const downloaded = await isModelReady(folder, model);
    return {
      kind: "on-device",
      model: model.id,
      repo: model.repo,
      revision: model.revision,
      dims: model.dims,
      query_prefix: model.queryPrefix,
      passage_prefix: model.passagePrefix,
      pinned: problem === null,
      download_size: problem === null ? formatBytes(downloadSize(model)) : null,
      models_folder: folder,
      source: embeddings.modelSource ?? DEFAULT_MODEL_SOURCE,
      downloaded,
      ...(downloaded ? {} : { to_download: problem ?? downloadCommand(args, model) }),
    };
  }
  return {
    kind: "endpoint",
    url: embeddings.url,
    model: embeddings.model,
    api_key: embeddings.apiKeyEnv === undefined ? "none" : `${embeddings.apiKeyEnv} (${process.env[embeddings.apiKeyEnv] ? "set" : "not set"})`,
    query_prefix: embeddings.queryPrefix ?? "",
    passage_prefix: embeddings.passagePrefix ?? "",
  };
}

/** Lists the on-device models, or downloads one only because this command asked for it. */
async function modelsCommand(args: CliArgs): Promise<void> {
  const config = await readConfig(args);
  const embeddings = config?.embeddings ?? { enabled: false };
  const models = onDeviceModels(embeddings);
  const folder = modelsFolderOf(args, config);
  const configured = embeddings.enabled && embeddings.kind === "on-device" ? embeddings.model : undefined;
  const [sub, id, ...extra] = args.positionals;
  if (extra.length > 0) throw new UsageError(`models takes one model ID; ${extra.join(" ")} is extra`);
  if (sub === "list") {
    const lines = [`Models folder: ${folder}`];
    for (const model of Object.values(models)) {
      const problem = pinProblem(model);
      const state = problem !== null ? "not pinned (cannot be downloaded)" : (await isModelReady(folder, model)) ? "downloaded, verified" : `not downloaded, ${formatBytes(downloadSize(model))}`;
      lines.push(`${model.id === configured ? "*" : " "} ${model.id}  ${model.repo}  ${model.dims} dims  ${model.multilingual ? "multilingual" : "English"}  ${state}`);
    }
    if (configured) lines.push("* the config's embeddings.model");
    process.stdout.write(lines.join("\n") + "\n");
    return;
  }
  if (sub !== "download") throw new UsageError(sub === undefined ? "models needs list or download" : `models has no "${sub}"; use list or download`);
  const name = id ?? configured;
  if (name === undefined) throw new UsageError("models download needs a model ID (see models list), or a config whose embeddings are kind: on-device");
  const model = models[name];
  if (!model) throw new UsageError(`"${name}" is not an on-device model; one of: ${Object.keys(models).join(", ")}`);
  const source = args.source ?? embeddings.modelSource ?? DEFAULT_MODEL_SOURCE;
  const sourceProblem = endpointProblem(source);
  if (sourceProblem) throw new UsageError(`--source ${sourceProblem.replace(/; give the endpoint.*$/, "; give the hub or a mirror, e.g. https://huggingface.co")}`);
  const plan = downloadPlan(model);
  process.stdout.write(`Downloading ${plan.summary} (${plan.totalBytes} bytes) from ${new URL(source).host} into ${modelFolder(folder, model)}\n`);
  let shown = -1;
  const step = process.stderr.isTTY ? 1 : 10;
  const result = await downloadModel({
    model,
    source,
    modelsFolder: folder,
    onProgress: ({ file, received, total }) => {
      const percent = Math.floor((received / total) * 100);
      if (percent < shown + step && received < total) return;
      shown = percent;
      process.stderr.write(`${process.stderr.isTTY ? "\r" : ""}${percent}%  ${formatBytes(received)} of ${formatBytes(total)}  ${file}${process.stderr.isTTY ? "\u001b[K" : "\n"}`);
    },
    onVerified: (file) => process.stdout.write(`${process.stderr.isTTY ? "\n" : ""}sha256 ok  ${file.path}  ${file.sha256}\n`),
  });
  process.stdout.write(`${model.id} is downloaded and verified (${formatBytes(result.bytes)}) in ${result.folder}\n`);
}

/** How long `sign-ins revoke` waits for a running server to take the sign-out up. */
const REVOKE_WAIT_MS = 10_000;

async function signInsCommand(args: CliArgs): Promise<number> {
  const [sub = "list", ...extra] = args.positionals;
  if (extra.length > 0 || (sub !== "list" && sub !== "revoke")) throw new UsageError(`sign-ins takes list or revoke; ${[sub, ...extra].join(" ")} is not one`);
  const signIns = await readSignIns(args.data);
  if (sub === "list") {
    if (signIns.length === 0) {
      process.stdout.write(`Nobody is signed in through OAuth (data folder ${args.data}).\n`);
      return 0;
    }
    const lines = signIns.map((entry) => [entry.user, JSON.stringify(entry.client_name ?? "(no name)"), entry.client_id, entry.last_used > 0 ? new Date(entry.last_used).toISOString() : "never"].join("  "));
    process.stdout.write(["user  client (as it named itself)  client id  last used", ...lines].join("\n") + "\n");
    return 0;
  }
  if (!args.client || !args.user) throw new UsageError("sign-ins revoke needs --client ID and --user NAME (run sign-ins to list them)");
  const revocation = { client_id: args.client, user: args.user };
  if (!signIns.some((entry) => entry.client_id === revocation.client_id && entry.user === revocation.user)) {
    throw new Error(`no client ${revocation.client_id} is signed in as ${revocation.user} in ${args.data}; run sign-ins to list who is`);
  }
  const servers = await runningServers(args.data);
  if (servers.length === 0) {
    const revoked = await revokeOffline(args.data, revocation);
    process.stdout.write(`Signed out: ${revoked} token(s) of client ${revocation.client_id} for ${revocation.user} revoked.\n`);
    return 0;
  }
  await askForRevocation(args.data, revocation);
  for (const pid of servers) process.kill(pid, "SIGHUP");
  for (const started = Date.now(); await revocationWaiting(args.data, revocation); ) {
    if (Date.now() - started > REVOKE_WAIT_MS) {
      process.stderr.write(`secondbrain-mcp: the running server (process ${servers.join(", ")}) has not taken the sign-out up within ${REVOKE_WAIT_MS / 1000} s; it will at its next SIGHUP or start.\n`);
      return 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  process.stdout.write(`Signed out by the running server (process ${servers.join(", ")}): client ${revocation.client_id} for ${revocation.user}.\n`);
  return 0;
}

/** The endpoint as validate shows it: where, whether a key is asked for (never the key), and which vault each label means. */
function metricsSummary(args: CliArgs, config: AppConfig | null): Record<string, unknown> | "off" {
  const settings = metricsSettings(args, config).metrics;
  if (!settings) return "off";
  return {
    path: settings.path,
    listener: settings.listen ? `${settings.listen.host}:${settings.listen.port}` : "main",
    key: settings.key === undefined ? "none" : settings.key.startsWith("env:") ? "required (env)" : "required (file)",
    vault_labels: Object.fromEntries(args.vaults.map((vault, index) => [String(index), vault.name])),
  };
}

async function main(argv: readonly string[]): Promise<number> {
  try {
    const args = parseArgs(argv);
    switch (args.command) {
      case "serve":
        await serve(args);
        return -1;
      case "reindex":
        await reindex(args);
        return 0;
      case "validate":
        await validate(args);
        return 0;
      case "hash-password":
        await hashPasswordCommand(args);
        return 0;
      case "sign-ins":
        return await signInsCommand(args);
      case "models":
        await modelsCommand(args);
        return 0;
      case "help":
        process.stdout.write(USAGE);
        return 0;
      default:
        throw new UsageError(`unknown command "${args.command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`secondbrain-mcp: ${error.message}\n\n${error instanceof UsageError ? USAGE : ""}`);
      return 2;
    }
    process.stderr.write(`secondbrain-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

void main(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exit(code);
});
