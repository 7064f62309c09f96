// Scripted model endpoints on loopback, speaking the Anthropic Messages, Gemini and OpenAI Responses
// APIs just far enough for Claude Code, Gemini CLI and Codex. A request that offers our tools gets the
// script's next tool call; the tool results the client sends back are recorded as the model would
// read them. These stand in for the models only: everything between them and the server is the real
// client.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Script, ScriptedCall, Seen } from "./scenario";

export type Vendor = "anthropic" | "gemini" | "openai";

export interface SeenResult extends Seen, ScriptedCall {
  /** The client's own record of the result, for the logs. */
  raw: unknown;
}

export interface FakeModel {
  /** The API's base URL, for the client's *_BASE_URL setting. */
  url: string;
  /** Our tool names as the client offered them to the model (its prefix removed). */
  offered: string[];
  /** What the model was shown of each scripted call, in order. */
  seen: SeenResult[];
  /** True once the model had nothing left to call. */
  finished: boolean;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Content blocks (MCP-like or the vendor's own) as the text a model reads. */
function blocksText(content: unknown): string {
  if (typeof content === "string") return content;
  return list(content)
    .map((block) => (isObject(block) ? (str(block.text) ?? `[${str(block.type) ?? "block"}]`) : String(block)))
    .join("\n");
}

/** A client's tool name for one of ours, when it is one: the prefix is whatever stands before "note_search". */
function prefixOf(names: string[]): string | undefined {
  const search = names.find((name) => name.endsWith("note_search"));
  return search?.slice(0, -"note_search".length);
}

/** The script's state, the same for every vendor: our calls so far and what came back of each. */
class Conversation {
  readonly offered: string[] = [];
  readonly seen: SeenResult[] = [];
  finished = false;

  constructor(
    private readonly script: Script,
    private readonly client: string,
    private readonly logDir: string,
  ) {}

  log(file: string, record: unknown): void {
    appendFileSync(path.join(this.logDir, file), `${JSON.stringify(record)}\n`);
  }

  offer(names: string[], prefix: string, raw: unknown): void {
    this.offered.splice(0, this.offered.length, ...names.filter((name) => name.startsWith(prefix)).map((name) => name.slice(prefix.length)));
    writeFileSync(path.join(this.logDir, "tools.json"), JSON.stringify(raw, null, 1));
  }

  /** The next call, given the results the client sent back for our earlier calls (undefined: none yet). */
  next(results: Array<(Seen & { raw: unknown }) | undefined>): ScriptedCall | undefined {
    results.forEach((result, index) => {
      if (result === undefined || this.seen[index] !== undefined) return;
      const entry = this.script[index];
      if (!entry) return;
      const call = entry.call(this.seen, this.client);
      this.seen[index] = { step: entry.step, ...call, ...result };
      this.log("seen.jsonl", this.seen[index]);
    });
    const index = results.length;
    const entry = this.script[index];
    if (!entry) {
      this.finished = true;
      return undefined;
    }
    return { step: entry.step, ...entry.call(this.seen, this.client) };
  }
}

async function body(request: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(value));
}

const DONE = "DONE: every scripted step was made.";

// ---- Anthropic Messages (Claude Code) -------------------------------------------------------------

function anthropic(conversation: Conversation, server: string): (url: string, request: Json, response: ServerResponse) => void {
  const prefix = `mcp__${server}__`;
  let counter = 0;
  return (url, request, response) => {
    if (url.startsWith("/v1/messages/count_tokens")) return sendJson(response, 200, { input_tokens: 100 });
    if (!url.startsWith("/v1/messages")) return sendJson(response, 404, { type: "error", error: { type: "not_found_error", message: `no ${url} here` } });
    const tools = list(request.tools).filter(isObject);
    const names = tools.map((tool) => str(tool.name) ?? "");
    let content: Json;
    if (!names.some((name) => name.startsWith(prefix))) {
      // The client's side requests (titles, summaries): any short text does.
      content = { type: "text", text: "OK" };
    } else {
      conversation.offer(names, prefix, tools);
      const uses: Json[] = [];
      const results = new Map<string, Json>();
      for (const message of list(request.messages).filter(isObject)) {
        for (const block of list(message.content).filter(isObject)) {
          if (message.role === "assistant" && block.type === "tool_use" && str(block.id)?.startsWith("toolu_fake_")) uses.push(block);
          if (message.role === "user" && block.type === "tool_result") results.set(str(block.tool_use_id) ?? "", block);
        }
      }
      const next = conversation.next(
        uses.map((use) => {
          const result = results.get(str(use.id) ?? "");
          return result && { text: blocksText(result.content), isError: result.is_error === true, raw: result };
        }),
      );
      content = next
        ? { type: "tool_use", id: `toolu_fake_${uses.length}_${++counter}`, name: prefix + next.tool, input: next.args }
        : { type: "text", text: DONE };
    }
    const stopReason = content.type === "tool_use" ? "tool_use" : "end_turn";
    const model = str(request.model) ?? "claude-scripted";
    const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const message = { id: `msg_fake_${++counter}`, type: "message", role: "assistant", model, content: [content], stop_reason: stopReason, stop_sequence: null, usage };
    if (request.stream !== true) return sendJson(response, 200, message);
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const event = (type: string, data: Json): boolean => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event("message_start", { message: { ...message, content: [], stop_reason: null } });
    if (content.type === "tool_use") {
      event("content_block_start", { index: 0, content_block: { ...content, input: {} } });
      event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(content.input) } });
    } else {
      event("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text: content.text } });
    }
    event("content_block_stop", { index: 0 });
    event("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
    event("message_stop", {});
    response.end();
  };
}

// ---- Gemini API (Gemini CLI) ----------------------------------------------------------------------

/** A value that satisfies a (Gemini-flavoured) JSON schema, for the CLI's own JSON requests (routing, checks). */
function valueFor(schema: unknown): unknown {
  if (!isObject(schema)) return {};
  const enumeration = list(schema.enum);
  if (enumeration.length > 0) return enumeration[0];
  const type = (str(schema.type) ?? "object").toLowerCase();
  if (type === "object") return Object.fromEntries(Object.entries(isObject(schema.properties) ? schema.properties : {}).map(([key, value]) => [key, valueFor(value)]));
  if (type === "array") return [];
  if (type === "number" || type === "integer") return typeof schema.minimum === "number" ? schema.minimum : 1;
  if (type === "boolean") return false;
  return "scripted";
}

/** What the model reads of a functionResponse: the tool's text where the CLI passes it as one string. */
function geminiText(response: unknown): string {
  if (isObject(response)) {
    for (const key of ["output", "content", "error"]) {
      const inner = response[key];
      if (typeof inner === "string") return inner;
      if (Array.isArray(inner)) return blocksText(inner);
    }
  }
  return JSON.stringify(response);
}

function gemini(conversation: Conversation): (url: string, request: Json, response: ServerResponse) => void {
  return (url, request, response) => {
    if (/:countTokens/.test(url)) return sendJson(response, 200, { totalTokens: 100 });
    const streaming = /:streamGenerateContent/.test(url);
    if (!streaming && !/:generateContent/.test(url)) {
      if (/\/models/.test(url)) return sendJson(response, 200, { models: [] });
      return sendJson(response, 404, { error: { code: 404, message: `no ${url} here`, status: "NOT_FOUND" } });
    }
    const declarations = list(request.tools)
      .filter(isObject)
      .flatMap((tool) => list(tool.functionDeclarations).filter(isObject));
    const names = declarations.map((declaration) => str(declaration.name) ?? "");
    const prefix = prefixOf(names);
    let part: Json;
    if (prefix === undefined) {
      const config = isObject(request.generationConfig) ? request.generationConfig : {};
      const wantsJson = config.responseMimeType === "application/json";
      part = { text: wantsJson ? JSON.stringify(valueFor(config.responseJsonSchema ?? config.responseSchema)) : "OK" };
    } else {
      conversation.offer(names, prefix, request.tools);
      const calls: Json[] = [];
      const responses: Json[] = [];
      for (const content of list(request.contents).filter(isObject)) {
        for (const item of list(content.parts).filter(isObject)) {
          if (content.role === "model" && isObject(item.functionCall)) calls.push(item.functionCall);
          if (isObject(item.functionResponse)) responses.push(item.functionResponse);
        }
      }
      const next = conversation.next(
        calls.map((_, index) => {
          const result = responses[index];
          if (!result) return undefined;
          const seen = isObject(result.response) ? result.response : {};
          return { text: geminiText(seen), isError: "error" in seen, raw: result };
        }),
      );
      part = next ? { functionCall: { name: prefix + next.tool, args: next.args } } : { text: DONE };
    }
    const candidate = {
      candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      modelVersion: "gemini-scripted",
    };
    if (!streaming) return sendJson(response, 200, candidate);
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(`data: ${JSON.stringify(candidate)}\r\n\r\n`);
  };
}

// ---- OpenAI Responses (Codex) ---------------------------------------------------------------------

/** Tool names as Codex offers them: plain functions, or namespaces holding functions ("ns|name"). */
function openaiNames(tools: unknown): string[] {
  return list(tools)
    .filter(isObject)
    .flatMap((tool) => {
      const own = str(tool.name) ?? (isObject(tool.function) ? str(tool.function.name) : undefined);
      const inner = list(tool.tools)
        .filter(isObject)
        .map((child) => `${own ?? ""}|${str(child.name) ?? ""}`);
      return [...(own ? [own] : []), ...inner];
    });
}

function openai(conversation: Conversation): (url: string, request: Json, response: ServerResponse) => void {
  let counter = 0;
  return (url, request, response) => {
    const route = url.split("?")[0] ?? "";
    if (/\/models$/.test(route)) return sendJson(response, 200, { object: "list", data: [], models: [] });
    if (!/\/responses$/.test(route)) return sendJson(response, 404, { error: { message: `no ${url} here`, type: "not_found" } });
    const names = openaiNames(request.tools);
    const prefix = prefixOf(names);
    let item: Json;
    if (prefix === undefined) {
      item = { type: "message", id: `msg_${++counter}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: "OK", annotations: [] }] };
    } else {
      conversation.offer(names, prefix, request.tools);
      const [namespace, inner] = prefix.includes("|") ? [prefix.slice(0, prefix.indexOf("|")), prefix.slice(prefix.indexOf("|") + 1)] : [undefined, prefix];
      const calls: Json[] = [];
      const outputs = new Map<string, Json>();
      for (const entry of list(request.input).filter(isObject)) {
        if (entry.type === "function_call" && str(entry.call_id)?.startsWith("call_fake_")) calls.push(entry);
        if (entry.type === "function_call_output") outputs.set(str(entry.call_id) ?? "", entry);
      }
      const next = conversation.next(
        calls.map((call) => {
          const output = outputs.get(str(call.call_id) ?? "");
          // The Responses API has no error flag on a function's output: the text is all the model gets.
          return output && { text: blocksText(output.output), isError: undefined, raw: output };
        }),
      );
      item = next
        ? {
            type: "function_call",
            id: `fc_${++counter}`,
            call_id: `call_fake_${calls.length}_${counter}`,
            name: inner + next.tool,
            arguments: JSON.stringify(next.args),
            status: "completed",
            ...(namespace ? { namespace } : {}),
          }
        : { type: "message", id: `msg_${++counter}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: DONE, annotations: [] }] };
    }
    const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
    const full = { id: `resp_${++counter}`, object: "response", created_at: Math.floor(Date.now() / 1000), status: "completed", model: request.model, output: [item], usage };
    if (request.stream !== true) return sendJson(response, 200, full);
    response.writeHead(200, { "content-type": "text/event-stream" });
    const event = (type: string, data: Json): boolean => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event("response.created", { response: { ...full, status: "in_progress", output: [] } });
    event("response.output_item.added", { output_index: 0, item });
    event("response.output_item.done", { output_index: 0, item });
    event("response.completed", { response: full });
    response.end();
  };
}

/** A scripted model for `client`, logging under `logDir` (requests.jsonl, tools.json, seen.jsonl). */
export async function startFakeModel(vendor: Vendor, script: Script, client: string, logDir: string, server = "secondbrain"): Promise<FakeModel> {
  mkdirSync(logDir, { recursive: true });
  const conversation = new Conversation(script, client, logDir);
  const handle = vendor === "anthropic" ? anthropic(conversation, server) : vendor === "gemini" ? gemini(conversation) : openai(conversation);
  const http: Server = createServer((request, response) => {
    body(request)
      .then((parsed) => {
        const url = request.url ?? "/";
        conversation.log("requests.jsonl", { method: request.method, url, model: parsed.model, stream: parsed.stream });
        handle(url, parsed, response);
      })
      .catch((error: unknown) => sendJson(response, 500, { error: { message: String(error) } }));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    offered: conversation.offered,
    seen: conversation.seen,
    get finished() {
      return conversation.finished;
    },
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
