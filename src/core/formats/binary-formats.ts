// attachment_read of PDFs and images: the registry's readers, which hand the parsing to the host's
// BinaryReaderPort (a worker thread on Node) and shape its answer to the response limit.
import { ToolError } from "../errors";
import { prepareImage } from "./image";
import { DEFAULT_IMAGE_LIMITS, type ImageLimits, type PreparedImage } from "./image-info";
import { PDF_MAX_PAGES, PDF_PAGE_CHAR_LIMIT, type PdfPageText } from "./pdf";
import { base64Of, type FormatReader, type FormatRequest, type FormatResult } from "./registry";

const LAST = Number.MAX_SAFE_INTEGER;

const PAGE_IMAGES_NOTE =
  "page_images is not available here: drawing a PDF page needs a canvas, and this server bundles none (it would be a native module). Each page's text is returned; an image embedded in the PDF can be exported to PNG and read with attachment_read.";

/** `3`, `2-5`, `2-` (to the end); undefined reads from the first page. */
export function parsePages(pages: string | undefined): { first: number; last: number } {
  if (pages === undefined || pages.trim() === "") return { first: 1, last: LAST };
  const match = /^\s*(\d+)\s*(?:(-)\s*(\d+)?)?\s*$/.exec(pages);
  const first = match ? Number(match[1]) : NaN;
  const last = match?.[3] !== undefined ? Number(match[3]) : match?.[2] !== undefined ? LAST : first;
  if (!match || first < 1 || last < first) {
    throw new ToolError("invalid_argument", `pages must be a page number or a range of them, e.g. "3", "2-5" or "4-" (to the end), first page 1; got "${pages}".`, {
      details: { argument: "pages" },
    });
  }
  return { first, last };
}

function rangeText(first: number, last: number): string {
  return last === LAST ? `${first}-` : first === last ? `${first}` : `${first}-${last}`;
}

/** The longest prefix of `text` with which the answer still fits; at least one character. */
function fittingChars(text: string, fits: (length: number) => boolean): number {
  let low = 1;
  let high = text.length;
  let best = 0;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    if (fits(middle)) {
      best = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  // Never end between the two halves of a surrogate pair.
  if (best > 0 && best < text.length && /[\uD800-\uDBFF]/.test(text[best - 1]!)) best -= 1;
  return Math.max(1, best);
}

async function readPdf(request: FormatRequest): Promise<FormatResult> {
  const binary = request.binary;
  if (!binary) {
    throw new ToolError("unavailable", `"${request.path}" is a PDF, and this server has no PDF reader running; read it in Obsidian, or ask the server's owner to run a build with the binary worker (npm run build).`, {
      details: { path: request.path, format: "pdf" },
    });
  }
  const { first, last } = parsePages(request.args.pages);
  const skip = request.args.offset;
  const text = await binary.pdfText(request.bytes, request.path, {
    first_page: first,
    last_page: last,
    ...(request.maxBytes !== undefined ? { max_chars: skip + request.maxBytes } : {}),
  });
  const firstText = text.pages[0]?.text ?? "";
  if (skip > 0 && skip >= firstText.length) {
    throw new ToolError("invalid_argument", `offset ${skip} is past the end of page ${first}'s text (${firstText.length} characters); for a PDF, offset counts characters into the first page. Pass offset 0, or the cursor from the previous read.`, {
      details: { argument: "offset" },
    });
  }
  const pages: PdfPageText[] = text.pages.map((page, index) => (index === 0 && skip > 0 ? { ...page, text: page.text.slice(skip) } : page));
  const lastAsked = Math.min(last, text.page_count);
  const head: Record<string, unknown> = { page_count: text.page_count };
  if (text.title !== undefined) head.title = text.title;
  if (text.author !== undefined) head.author = text.author;
  const notes: string[] = [];
  if (request.args.page_images) notes.push(PAGE_IMAGES_NOTE);
  const build = (count: number, cutAt?: number): FormatResult => {
    const shown = pages.slice(0, count).map((page, index) => {
      const entry: Record<string, unknown> = { page: page.page, text: page.text, chars: page.chars };
      if (index === 0 && skip > 0) entry.from_char = skip;
      if (page.cut) entry.page_cut = `This page's text is longer than ${PDF_PAGE_CHAR_LIMIT} characters and is cut there.`;
      if (index === count - 1 && cutAt !== undefined) entry.text = page.text.slice(0, cutAt);
      return entry;
    });
    const body: Record<string, unknown> = { ...head, pages: shown };
    let next: { pages: string; offset: number } | undefined;
    const lastShown = pages[count - 1];
    if (cutAt !== undefined && lastShown) {
      const consumed = (count === 1 ? skip : 0) + cutAt;
      next = { pages: rangeText(lastShown.page, last), offset: consumed };
      body.window_shortened = `Page ${lastShown.page}'s text does not fit the response limit whole; it ends at character ${consumed}, and the cursor continues there.`;
    } else if (count < pages.length) {
      next = { pages: rangeText(pages[count]!.page, last), offset: 0 };
      body.window_shortened = `Pages ${pages[count]!.page}-${pages[pages.length - 1]!.page} do not fit the response limit with the pages before; the cursor continues there.`;
    } else if (text.next_page !== undefined && text.next_page <= lastAsked) {
      next = { pages: rangeText(text.next_page, last), offset: 0 };
      body.more_pages = `At most ${PDF_MAX_PAGES} pages, and as many as a few seconds of parsing allow, come in one call; the cursor continues from page ${text.next_page}.`;
    }
    if (notes.length > 0) body.notes = notes;
    return next ? { body, next } : { body };
  };
  if (pages.length === 0) return build(0);
  for (let count = pages.length; count >= 1; count -= 1) {
    const attempt = build(count);
    if (request.fits(attempt.body)) return attempt;
  }
  const length = fittingChars(pages[0]!.text, (chars) => request.fits(build(1, chars).body));
  return build(1, length);
}

export const pdfReader: FormatReader = {
  format: "pdf",
  extensions: ["pdf"],
  read: readPdf,
};

function imageBody(image: PreparedImage, limits: ImageLimits): Record<string, unknown> {
  return {
    image_format: image.format,
    mime_type: image.mimeType,
    width: image.width,
    height: image.height,
    bytes: image.data.length,
    resized: image.resized,
    original: { format: image.original.format, width: image.original.width, height: image.original.height, bytes: image.original.bytes },
    limits: { max_side: limits.maxSide, max_bytes: limits.maxBytes },
    ...(image.resized
      ? { resized_note: `Scaled down from ${image.original.width}×${image.original.height} to ${image.width}×${image.height} (${image.format.toUpperCase()}) to stay within ${limits.maxSide} pixels a side and ${limits.maxBytes} bytes; the file itself is unchanged.` }
      : {}),
  };
}

async function readImage(request: FormatRequest): Promise<FormatResult> {
  const limits: ImageLimits = { ...DEFAULT_IMAGE_LIMITS, maxBytes: Math.min(DEFAULT_IMAGE_LIMITS.maxBytes, request.imageBytes) };
  const binary = request.binary;
  const image = binary ? await binary.image(request.bytes, request.path, limits) : prepareImage(request.bytes, request.path, limits);
  return { body: imageBody(image, limits), images: [{ data: base64Of(image.data), mimeType: image.mimeType }] };
}

export const imageReader: FormatReader = {
  format: "image",
  extensions: ["png", "jpg", "jpeg", "gif", "webp"],
  read: readImage,
};
