// tools/list and tools/call over the tool definitions: the user's toolsets, the read-only filter,
// argument parsing, the handler call, result mapping, truncation and the audit line.
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { isToolError, ToolError } from "../core/errors";
import { toolOutcome, type Metrics } from "../core/metrics";
import type { Logger } from "../core/ports";
import { isMutating, toolsFor } from "../tools/registry";
import { offersGroup } from "../tools/toolsets";
import { imagesOf, type AnyToolDefinition, type ToolContext, type ToolResult, type UserInfo, type VaultDirectory } from "../tools/types";
import { argumentAtFault, auditToolCall } from "./audit";
import { logUnexpected } from "./diagnostics";
import { errorResult, internalToolError, namedArgument, successResult, type EncodedResult } from "./results";
import { closeMatches } from "./suggest";
import { encodeResult, fitResult, utf8Bytes, type Paging } from "./truncate";

export interface ToolCatalogOptions {
  user: UserInfo;
  tools: readonly AnyToolDefinition[];
  directory: VaultDirectory;
  logger: Logger;
  maxResponseBytes: number;
  now(): number;
  /** Counts each call for the metrics endpoint, beside its audit line. */
  metrics?: Metrics;
}

/** What a call brings besides its name and arguments. */
export interface CallEnvironment {
  clientName?: string;
  progress?: ToolContext["progress"];
  signal?: AbortSignal;
}

/** The arguments as parsed (or as sent, when parsing failed) and what came of the call. */
type Outcome = { args: unknown } & ({ result: ToolResult } | { error: ToolError; argument: string | undefined });

/** Codes whose errors are about what the caller passed, so they may name the argument at fault. */
const ARGUMENT_ERRORS: ReadonlySet<ToolError["code"]> = new Set(["invalid_argument", "invalid_query"]);

/** Claude Code keeps a tool's text result in the conversation up to this many characters (500,000 at most). */
export const MAX_RESULT_SIZE_META = "anthropic/maxResultSizeChars";
const MAX_RESULT_SIZE_CEILING = 500_000;

/**
 * A tools/list entry. Tools with `largeResults` declare the response limit as their result size: a
 * result never exceeds it (a UTF-8 byte is at most one character), so such a client keeps it whole.
 */
export function listedTool(tool: AnyToolDefinition, maxResponseBytes?: number): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.input.jsonSchema as Tool["inputSchema"],
    annotations: { title: tool.title, ...tool.annotations },
    ...(tool.largeResults && maxResponseBytes !== undefined
      ? { _meta: { [MAX_RESULT_SIZE_META]: Math.min(maxResponseBytes, MAX_RESULT_SIZE_CEILING) } }
      : {}),
  };
}

function pagingOf(name: string, tool: AnyToolDefinition | undefined, args: unknown): Paging {
  const properties = tool?.input.jsonSchema.properties;
  const declared = typeof properties === "object" && properties !== null ? Object.keys(properties) : [];
  const offset = typeof args === "object" && args !== null ? (args as Record<string, unknown>).offset : undefined;
  return {
    tool: name,
    takesLimit: declared.includes("limit"),
    ...(declared.includes("offset") ? { offset: typeof offset === "number" ? offset : 0 } : {}),
  };
}

export class ToolCatalog {
  private readonly usable: Map<string, AnyToolDefinition>;

  constructor(private readonly options: ToolCatalogOptions) {
    this.usable = new Map(toolsFor(options.user, options.tools).map((tool) => [tool.name, tool]));
  }

  list(): Tool[] {
    return [...this.usable.values()].map((tool) => listedTool(tool, this.options.maxResponseBytes));
  }

  async call(name: string, args: unknown, environment: CallEnvironment = {}): Promise<CallToolResult> {
    const startedAt = this.options.now();
    const outcome = await this.execute(name, args, environment);
    const { encoded, truncated } = this.encode(name, outcome);
    const finishedAt = this.options.now();
    auditToolCall(this.options.logger, {
      tool: name,
      user: this.options.user.name,
      declared: this.declared(name),
      ...outcome,
      startedAt,
      finishedAt,
      bytes: utf8Bytes(encoded.text),
    });
    // Counted where the audit line is written, so the two cannot disagree.
    this.options.metrics?.recordToolCall({
      tool: name,
      outcome: toolOutcome("error" in outcome ? outcome.error.code : undefined),
      seconds: Math.max(0, finishedAt - startedAt) / 1000,
      wrote: "result" in outcome && this.wrote(name, outcome.result),
      truncated,
    });
    return encoded.result;
  }

  private encode(name: string, outcome: Outcome): { encoded: EncodedResult; truncated: boolean } {
    if ("error" in outcome) return { encoded: errorResult(outcome.error, outcome.argument), truncated: false };
    const paging = pagingOf(name, this.usable.get(name), outcome.args);
    const fitted = fitResult(outcome.result, this.options.maxResponseBytes, paging);
    return { encoded: successResult(fitted, imagesOf(outcome.result)), truncated: fitted !== outcome.result };
  }

  /**
   * A mutating tool's result says `dry_run: false` when it went ahead, and `changed: false` when the
   * note already had that content; a result without `dry_run` (journal reading a day) wrote nothing.
   */
  private wrote(name: string, result: ToolResult): boolean {
    const tool = this.usable.get(name);
    return tool !== undefined && isMutating(tool) && result.dry_run === false && result.changed !== false;
  }

  private async execute(name: string, rawArgs: unknown, environment: CallEnvironment): Promise<Outcome> {
    let args = rawArgs;
    let parsed = false;
    try {
      const tool = this.resolve(name);
      const input = tool.input.parse(rawArgs);
      args = input;
      parsed = true;
      return { args, result: await tool.handler(this.context(environment), input) };
    } catch (caught) {
      const error = this.asToolError(name, caught);
      return { args, error, argument: parsed ? this.argumentOf(name, error, rawArgs) : namedArgument(error) };
    }
  }

  /** The tool's declared argument names; none for an unknown tool. */
  private declared(name: string): string[] {
    const properties = this.options.tools.find((tool) => tool.name === name)?.input.jsonSchema.properties;
    return typeof properties === "object" && properties !== null ? Object.keys(properties) : [];
  }

  /**
   * A handler's error names its argument, or is matched to the declared argument its message names.
   * (The schema's own errors name theirs; a guess there would pick a name from "Accepted: …".)
   */
  private argumentOf(name: string, error: ToolError, sent: unknown): string | undefined {
    const named = namedArgument(error);
    if (named !== undefined || !ARGUMENT_ERRORS.has(error.code)) return named;
    const passed = typeof sent === "object" && sent !== null ? (sent as Record<string, unknown>) : {};
    return argumentAtFault(error.message, this.declared(name), passed);
  }

  private resolve(name: string): AnyToolDefinition {
    const tool = this.usable.get(name);
    if (tool) return tool;
    const known = this.options.tools.find((candidate) => candidate.name === name);
    if (known && this.options.user.readOnly && isMutating(known)) {
      throw new ToolError("read_only", `Tool "${name}" changes the vault, and your access is read-only. Only reading tools are available; see tools/list.`);
    }
    if (known && !offersGroup(this.options.user, known.group)) {
      throw new ToolError(
        "forbidden",
        `Tool "${name}" belongs to the "${known.group}" toolset, which is not enabled for you. Use the tools in tools/list, or ask whoever runs the server to add "${known.group}" to your toolsets: users[].toolsets in the headless server's config file (--toolsets when it runs without one), or Toolsets under your user in the Obsidian plugin's settings.`,
        { details: { toolset: known.group } },
      );
    }
    const near = closeMatches(name, [...this.usable.keys()]);
    const hint = near.length > 0 ? ` Did you mean ${near.join(", ")}?` : "";
    throw new ToolError("not_found", `Unknown tool "${name}".${hint} Call tools/list for the tools you can use.`);
  }

  private context(environment: CallEnvironment): ToolContext {
    const { user, directory, logger, maxResponseBytes } = this.options;
    const response = { maxBytes: maxResponseBytes, fits: (result: ToolResult) => utf8Bytes(encodeResult(result)) <= maxResponseBytes };
    return { user, vaults: directory, logger, response, now: () => this.options.now(), ...environment };
  }

  private asToolError(name: string, error: unknown): ToolError {
    if (isToolError(error)) return error;
    logUnexpected(this.options.logger, "tool_exception", error, { tool: name });
    return internalToolError();
  }
}
