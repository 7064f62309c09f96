// A tool is data plus a handler: the MCP layer turns definitions into tools/list entries and calls,
// so nothing here depends on the SDK.
import type { Logger } from "../core/ports";
import type { ObjectSchema, Parsed, Shape } from "./schema";
import type { VaultEngine } from "../core/vault/types";

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * The toolsets a user can be offered. `host` holds the tools only the Obsidian plugin has
 * (active_note, open_note); the headless server has none of them.
 */
export const TOOL_GROUPS = ["find", "write", "maintain", "history", "host"] as const;
export type ToolGroup = (typeof TOOL_GROUPS)[number];

export function isToolGroup(value: string): value is ToolGroup {
  return (TOOL_GROUPS as readonly string[]).includes(value);
}

export interface UserInfo {
  name: string;
  readOnly: boolean;
  /** Vault names this user may use; empty means all. */
  vaults: readonly string[];
  /** The tool groups this user is offered; absent means every group. */
  toolsets?: readonly ToolGroup[];
}

/** The vaults one user can see. An unknown vault and a forbidden one give the same error. */
export interface VaultDirectory {
  defaultName(): string;
  visible(): VaultEngine[];
  get(name: string | undefined): VaultEngine;
}

/** The response limit a result is held to (max_response_bytes); longer results are cut. */
export interface ResponseBudget {
  maxBytes: number;
  fits(result: ToolResult): boolean;
}

export interface ToolContext {
  user: UserInfo;
  vaults: VaultDirectory;
  logger: Logger;
  /** MCP clientInfo.name of the caller, when it sent one. */
  clientName?: string;
  progress?: (progress: number, total?: number, message?: string) => Promise<void>;
  signal?: AbortSignal;
  /** Tools that can continue where they stop (note_read) size their answer to it rather than be cut. */
  response?: ResponseBudget;
  now(): number;
}

export type ToolResult = Record<string, unknown>;

/** An image sent as MCP image content beside the result's text (attachment_read of an image or a PDF page). */
export interface ImageBlock {
  /** Base64, standard alphabet, padded. */
  data: string;
  mimeType: string;
}

// A symbol key: JSON (the result's text and structuredContent) never carries the image bytes, and the
// response limit, which measures that JSON, does not count them; the reader sizes images itself.
const IMAGES = Symbol("images");

/** The result, carrying images to send after its text. */
export function withImages(result: ToolResult, images: readonly ImageBlock[]): ToolResult {
  if (images.length > 0) Object.defineProperty(result, IMAGES, { value: [...images], enumerable: false });
  return result;
}

export function imagesOf(result: ToolResult): readonly ImageBlock[] {
  const images: unknown = (result as { [IMAGES]?: unknown })[IMAGES];
  return Array.isArray(images) ? (images as ImageBlock[]) : [];
}

export interface ToolDefinition<S extends Shape = Shape> {
  name: string;
  title: string;
  description: string;
  group: ToolGroup;
  input: ObjectSchema<S>;
  annotations: ToolAnnotations;
  /**
   * Results worth keeping whole up to the response limit (a note's text, many matches): clients that
   * move long results out of the conversation are told this tool's may be that long.
   */
  largeResults?: boolean;
  handler(ctx: ToolContext, args: Parsed<S>): Promise<ToolResult>;
}

// Handlers are typed per tool; the registry holds them erased to their common shape (method
// parameters are bivariant, so a specific definition is a valid AnyToolDefinition).
export type AnyToolDefinition = ToolDefinition<Shape>;

export function defineTool<S extends Shape>(definition: ToolDefinition<S>): AnyToolDefinition {
  return definition;
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
