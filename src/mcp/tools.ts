// tools/list and tools/call over the tool definitions: the read-only filter, argument parsing,
// the handler call, result mapping, truncation and the audit line.
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { isToolError, ToolError } from "../core/errors";
import type { Logger } from "../core/ports";
import { toolsFor } from "../tools/registry";
import type { AnyToolDefinition, ToolContext, ToolResult, UserInfo, VaultDirectory } from "../tools/types";
import { auditToolCall } from "./audit";
import { logUnexpected } from "./diagnostics";
import { errorResult, internalToolError, successResult, type EncodedResult } from "./results";
import { closeMatches } from "./suggest";
import { fitResult, utf8Bytes } from "./truncate";

export interface ToolCatalogOptions {
  user: UserInfo;
  tools: readonly AnyToolDefinition[];
  directory: VaultDirectory;
  logger: Logger;
  maxResponseBytes: number;
  now(): number;
}

/** What a call brings besides its name and arguments. */
export interface CallEnvironment {
  clientName?: string;
  progress?: ToolContext["progress"];
  signal?: AbortSignal;
}

/** The arguments as parsed (or as sent, when parsing failed) and what came of the call. */
type Outcome = { args: unknown } & ({ result: ToolResult } | { error: ToolError });

export function listedTool(tool: AnyToolDefinition): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.input.jsonSchema as Tool["inputSchema"],
    annotations: { title: tool.title, ...tool.annotations },
  };
}

export class ToolCatalog {
  private readonly usable: Map<string, AnyToolDefinition>;

  constructor(private readonly options: ToolCatalogOptions) {
    this.usable = new Map(toolsFor(options.user, options.tools).map((tool) => [tool.name, tool]));
  }

  list(): Tool[] {
    return [...this.usable.values()].map(listedTool);
  }

  async call(name: string, args: unknown, environment: CallEnvironment = {}): Promise<CallToolResult> {
    const startedAt = this.options.now();
    const outcome = await this.execute(name, args, environment);
    const encoded = this.encode(outcome);
    const declared = this.options.tools.find((tool) => tool.name === name)?.input.jsonSchema.properties;
    auditToolCall(this.options.logger, {
      tool: name,
      user: this.options.user.name,
      declared: typeof declared === "object" && declared !== null ? Object.keys(declared) : [],
      ...outcome,
      startedAt,
      finishedAt: this.options.now(),
      bytes: utf8Bytes(encoded.text),
    });
    return encoded.result;
  }

  private encode(outcome: Outcome): EncodedResult {
    if ("error" in outcome) return errorResult(outcome.error);
    return successResult(fitResult(outcome.result, this.options.maxResponseBytes));
  }

  private async execute(name: string, rawArgs: unknown, environment: CallEnvironment): Promise<Outcome> {
    let args = rawArgs;
    try {
      const tool = this.resolve(name);
      const parsed = tool.input.parse(rawArgs);
      args = parsed;
      return { args, result: await tool.handler(this.context(environment), parsed) };
    } catch (error) {
      return { args, error: this.asToolError(name, error) };
    }
  }

  private resolve(name: string): AnyToolDefinition {
    const tool = this.usable.get(name);
    if (tool) return tool;
    const known = this.options.tools.find((candidate) => candidate.name === name);
    if (known && this.options.user.readOnly) {
      throw new ToolError("read_only", `Tool "${name}" changes the vault, and your access is read-only. Only reading tools are available; see tools/list.`);
    }
    const near = closeMatches(name, [...this.usable.keys()]);
    const hint = near.length > 0 ? ` Did you mean ${near.join(", ")}?` : "";
    throw new ToolError("not_found", `Unknown tool "${name}".${hint} Call tools/list for the tools you can use.`);
  }

  private context(environment: CallEnvironment): ToolContext {
    const { user, directory, logger } = this.options;
    return { user, vaults: directory, logger, now: () => this.options.now(), ...environment };
  }

  private asToolError(name: string, error: unknown): ToolError {
    if (isToolError(error)) return error;
    logUnexpected(this.options.logger, "tool_exception", error, { tool: name });
    return internalToolError();
  }
}
