// attachment_put: stores a file an agent has as base64 (an image, a PDF, a CSV) and hands back the
// embed to paste into a note. Only an allow-list of extensions (SPEC §5): nothing executable, and
// notes go through the note tools so they get the note guards.
import { ToolError } from "../../core/errors";
import { ATTACHMENT_EXTENSIONS, basename, extname } from "../../core/notes/paths";
import { findSecrets } from "../../core/write/secrets";
import { svgScriptProblem } from "../../core/write/svg";
import type { VaultEngine } from "../../core/vault/types";
import { normalizeFolder, vaultField } from "../common";
import { boolean, object, string, withDefault } from "../schema";
import { defineTool } from "../types";
import { actorOf, dryRunField, reasonField, REPLACES_NOTE, writeResult } from "./common";

export const MAX_ATTACHMENT_BYTES = 32 * 1024 * 1024;
/** Extensions whose bytes are text a person reads, so the credential guard applies to them too. */
const TEXT_EXTENSIONS = new Set(["svg", "txt", "csv", "json", "yaml", "yml", "canvas"]);

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE = new Int16Array(128).fill(-1);
for (let index = 0; index < ALPHABET.length; index++) DECODE[ALPHABET.charCodeAt(index)] = index;
// base64url as well: agents and tools produce both.
DECODE["-".charCodeAt(0)] = 62;
DECODE["_".charCodeAt(0)] = 63;

function invalidBase64(problem: string): ToolError {
  return new ToolError("invalid_argument", `data_base64 is not valid base64 (${problem}). Pass the file's bytes base64-encoded (standard or URL-safe alphabet, padding optional; a data: URL prefix is accepted).`);
}

/** The base64 characters of the input: a `data:…;base64,` prefix, whitespace and padding removed. */
export function base64Payload(input: string): string {
  let text = input;
  const comma = text.indexOf(",");
  if (text.startsWith("data:") && comma > 0 && text.slice(0, comma).endsWith(";base64")) text = text.slice(comma + 1);
  if (/\s/.test(text)) text = text.replace(/\s+/g, "");
  const padding = /=+$/.exec(text)?.[0].length ?? 0;
  if (padding > 2) throw invalidBase64("too much `=` padding");
  return padding > 0 ? text.slice(0, -padding) : text;
}

/** Bytes a payload (from base64Payload) decodes to, known before decoding so oversize input costs nothing. */
export function decodedLength(payload: string): number {
  if (payload.length % 4 === 1) throw invalidBase64("its length is impossible for base64");
  return Math.floor((payload.length * 3) / 4);
}

export function decodeBase64(payload: string): Uint8Array {
  const out = new Uint8Array(decodedLength(payload));
  const sextet = (index: number): number => {
    const code = payload.charCodeAt(index);
    return code < 128 ? DECODE[code]! : -1;
  };
  const whole = payload.length - (payload.length % 4);
  let written = 0;
  for (let index = 0; index < whole; index += 4) {
    const a = sextet(index);
    const b = sextet(index + 1);
    const c = sextet(index + 2);
    const d = sextet(index + 3);
    if ((a | b | c | d) < 0) throw invalidBase64(`unexpected character near position ${index}`);
    out[written] = (a << 2) | (b >> 4);
    out[written + 1] = ((b & 15) << 4) | (c >> 2);
    out[written + 2] = ((c & 3) << 6) | d;
    written += 3;
  }
  const tail = payload.length - whole;
  if (tail > 0) {
    const a = sextet(whole);
    const b = tail >= 2 ? sextet(whole + 1) : -1;
    const c = tail === 3 ? sextet(whole + 2) : 0;
    if ((a | b | c) < 0) throw invalidBase64(`unexpected character near position ${whole}`);
    out[written] = (a << 2) | (b >> 4);
    if (tail === 3) out[written + 1] = ((b & 15) << 4) | (c >> 2);
  }
  return out;
}

function checkExtension(path: string): string {
  const ext = extname(path);
  if (ext === "md") {
    throw new ToolError("invalid_argument", `"${path}" is a note; attachment_put stores attachments only. Create notes with note_create (or note_write to replace one).`);
  }
  if (!ATTACHMENT_EXTENSIONS.includes(ext)) {
    throw new ToolError(
      "unsupported",
      `attachment_put does not store ${ext === "" ? "files without an extension" : `.${ext} files`} ("${path}"). Allowed: ${ATTACHMENT_EXTENSIONS.map((item) => `.${item}`).join(" ")}.`,
      { details: { extension: ext, allowed: ATTACHMENT_EXTENSIONS } },
    );
  }
  return ext;
}

/** UTF-8 unless a byte-order mark or the first `<` says UTF-16, as a browser reads an SVG. */
function decodeText(bytes: Uint8Array): string {
  const [first, second] = [bytes[0], bytes[1]];
  const utf16le = (first === 0xff && second === 0xfe) || (first === 0x3c && second === 0x00);
  const utf16be = (first === 0xfe && second === 0xff) || (first === 0x00 && second === 0x3c);
  return new TextDecoder(utf16le ? "utf-16le" : utf16be ? "utf-16be" : "utf-8", { fatal: false }).decode(bytes);
}

function checkText(path: string, ext: string, bytes: Uint8Array): void {
  if (!TEXT_EXTENSIONS.has(ext)) return;
  const text = decodeText(bytes);
  if (ext === "svg") {
    const problem = svgScriptProblem(text);
    if (problem !== null) {
      throw new ToolError(
        "forbidden",
        `Refused: "${path}" contains ${problem}, and an SVG that can run code runs it wherever the vault is opened in a browser or published. Store it without <script> and <foreignObject> elements, on…= event-handler attributes and javascript: URLs (or as a PNG), then call again.`,
      );
    }
  }
  if (ext === "canvas") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new ToolError("invalid_argument", `"${path}" is not a canvas: a .canvas file must be a JSON object ({"nodes": [], "edges": []}). Fix the JSON and call again.`);
    }
  }
  const secrets = findSecrets(text.split("\n").map((line, index) => ({ line: index + 1, text: line })));
  if (secrets.length > 0) {
    const where = secrets.map((finding) => `line ${finding.line} (${finding.detector})`).join(", ");
    throw new ToolError("forbidden", `Refused: "${path}" contains what looks like a credential at ${where}. Remove it or replace it with a placeholder, then call again.`, {
      details: { lines: secrets.map((finding) => finding.line), detectors: secrets.map((finding) => finding.detector) },
    });
  }
}

/** A bare file name goes to Obsidian's attachment folder setting (`app.json`), when it names a folder. */
async function withAttachmentFolder(engine: VaultEngine, input: string): Promise<string> {
  if (input.includes("/") || input.includes("\\")) return input;
  const folder = (await engine.appConfig("app.json"))?.attachmentFolderPath;
  if (typeof folder !== "string" || folder.trim() === "" || folder.trim().startsWith(".") || folder.trim() === "/") return input;
  try {
    return `${normalizeFolder(folder)}${input}`;
  } catch {
    return input;
  }
}

/** `![[name.png]]` when no other file has that name, else the full path (the shortest form that resolves). */
export function embedFor(engine: VaultEngine, path: string): string {
  const name = basename(path);
  const clash = engine.files().some((file) => file.path !== path && basename(file.path).toLowerCase() === name.toLowerCase());
  return `![[${clash ? path : name}]]`;
}

export const attachmentPut = defineTool({
  name: "attachment_put",
  title: "Store an attachment",
  description: `Stores a file from base64 bytes at \`path\` (allowed: ${ATTACHMENT_EXTENSIONS.map((item) => `.${item}`).join(" ")}; at most ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MiB decoded) and returns \`embed\`, a ready \`![[…]]\` to put in a note with note_edit or note_section_edit. A bare file name goes to the vault's attachment folder (Obsidian's setting) when one is set. An existing file is refused unless overwrite: true (the old bytes go to the trash). Not for notes: use note_create.`,
  group: "write",
  input: object({
    vault: vaultField,
    path: string({ description: "Vault-relative path with extension, e.g. `Attachments/diagram.png`." }),
    data_base64: string({ description: "The file's bytes, base64-encoded (a data: URL is accepted).", raw: true }),
    overwrite: withDefault(boolean({ description: "Replace an existing file (its old bytes go to the trash)." }), false),
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: REPLACES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { path } = await engine.resolve(await withAttachmentFolder(engine, args.path));
    const ext = checkExtension(path);
    const payload = base64Payload(args.data_base64);
    const size = decodedLength(payload);
    if (size > MAX_ATTACHMENT_BYTES) {
      throw new ToolError("too_large", `The decoded file is ${size} bytes; attachment_put stores at most ${MAX_ATTACHMENT_BYTES} bytes (32 MiB). Compress or split the file.`, {
        details: { bytes: size, limit: MAX_ATTACHMENT_BYTES },
      });
    }
    if (size === 0) throw new ToolError("invalid_argument", "data_base64 is empty; pass the file's bytes base64-encoded.");
    const bytes = decodeBase64(payload);
    checkText(path, ext, bytes);
    const result = await engine.writes.writeBinary({
      path,
      tool: "attachment_put",
      actor: actorOf(ctx),
      bytes,
      overwrite: args.overwrite,
      dry_run: args.dry_run,
      ...(args.reason !== undefined ? { reason: args.reason } : {}),
    });
    return writeResult(result, { embed: embedFor(engine, path) });
  },
});
