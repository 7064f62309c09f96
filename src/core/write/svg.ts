// An SVG is a document a browser runs: opened from a synced or published vault, a <script>, an
// onload= handler or a javascript: link in it executes. attachment_put refuses SVGs that could run
// code. The scan is a single pass over the markup (tags, attributes, quotes, comments), so it is linear
// in the file's size and not fooled by letter case, spaces around `=`, namespace prefixes or
// character references inside attribute values.

/** Elements whose content runs (script; SVG Tiny's handler and listener) or is HTML that may run (foreignObject). */
const ACTIVE_ELEMENTS = new Set(["script", "foreignobject", "handler", "listener"]);
/** URL schemes that run code when followed or loaded. */
const ACTIVE_SCHEMES = ["javascript:", "vbscript:", "livescript:"];

const NAMED_REFERENCES = new Map(
  Object.entries({ colon: ":", tab: "\t", newline: "\n", amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", sol: "/", lpar: "(", rpar: ")", nbsp: " ", semi: ";" }),
);

/** Why the SVG could run code, or null when nothing in it can. */
export function svgScriptProblem(text: string): string | null {
  const length = text.length;
  const scan = { problem: null as string | null };
  let at = text.indexOf("<");
  while (at >= 0 && at < length) {
    const second = text.charCodeAt(at + 1);
    if (second === BANG && text.startsWith("<!--", at)) {
      const end = text.indexOf("-->", at + 4);
      if (end < 0) return null;
      at = text.indexOf("<", end + 3);
    } else if (second === BANG && text.startsWith("<![CDATA[", at)) {
      const end = text.indexOf("]]>", at + 9);
      if (end < 0) return null;
      at = text.indexOf("<", end + 3);
    } else if (second === BANG) {
      // A DOCTYPE's internal subset may declare entities that expand into markup (`&x;` → `<script>`).
      const end = declarationEnd(text, at);
      if (/<!ENTITY/i.test(text.slice(at, end))) return "an entity declaration (<!ENTITY …>), which can expand into markup";
      at = text.indexOf("<", end);
    } else if (second === QUESTION) {
      const end = text.indexOf("?>", at + 2);
      if (/^xml-stylesheet\b/i.test(text.slice(at + 2, Math.min(at + 32, length)))) {
        return "an xml-stylesheet instruction, which can load a stylesheet or transform that runs code";
      }
      if (end < 0) return null;
      at = text.indexOf("<", end + 2);
    } else {
      const end = scanTag(text, at + 1, scan);
      if (scan.problem !== null) return scan.problem;
      at = text.indexOf("<", end);
    }
  }
  return null;
}

/** The offset after a `<!…>` declaration, skipping a bracketed internal subset and quoted strings. */
function declarationEnd(text: string, start: number): number {
  let depth = 0;
  let quote = "";
  for (let at = start + 2; at < text.length; at++) {
    const char = text[at]!;
    if (quote !== "") {
      if (char === quote) quote = "";
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "[") depth++;
    else if (char === "]") depth = Math.max(0, depth - 1);
    else if (char === ">" && depth === 0) return at + 1;
  }
  return text.length;
}

const LT = 0x3c;
const BANG = 0x21;
const QUESTION = 0x3f;
const GT = 0x3e;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const COLON = 0x3a;
const AMPERSAND = 0x26;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0x0c;
}

/** A name without its namespace prefix (`svg:script` → `script`), lower-cased. */
function localName(name: string): string {
  return name.slice(name.lastIndexOf(":") + 1).toLowerCase();
}

/** `on…` after any namespace prefix, in any letter case: an event handler. */
function isHandlerName(text: string, start: number, end: number): boolean {
  let local = start;
  for (let at = start; at < end; at++) if (text.charCodeAt(at) === COLON) local = at + 1;
  return end - local >= 2 && (text.charCodeAt(local) | 0x20) === 0x6f && (text.charCodeAt(local + 1) | 0x20) === 0x6e;
}

/** Scans one tag from just after its `<`: its name, then each attribute; `end` is after its `>`. */
function scanTag(text: string, start: number, scan: { problem: string | null }): number {
  const length = text.length;
  let at = start;
  while (at < length && (isSpace(text.charCodeAt(at)) || text.charCodeAt(at) === SLASH)) at++;
  const nameStart = at;
  for (let code = text.charCodeAt(at); at < length && !isSpace(code) && code !== GT && code !== SLASH && code !== LT; code = text.charCodeAt(++at));
  if (at - nameStart >= 6 && at - nameStart <= 32 && ACTIVE_ELEMENTS.has(localName(text.slice(nameStart, at)))) {
    scan.problem = `a <${text.slice(nameStart, at)}> element`;
    return at;
  }
  while (at < length) {
    for (let code = text.charCodeAt(at); at < length && (isSpace(code) || code === SLASH); code = text.charCodeAt(++at));
    if (at >= length) break;
    const next = text.charCodeAt(at);
    if (next === GT) return at + 1;
    if (next === LT) return at;
    const attributeStart = at;
    for (let code = next; at < length && !isSpace(code) && code !== EQUALS && code !== GT && code !== SLASH && code !== LT; code = text.charCodeAt(++at));
    if (at === attributeStart) {
      at++;
      continue;
    }
    const attributeEnd = at;
    if (isHandlerName(text, attributeStart, attributeEnd)) {
      scan.problem = `an event-handler attribute (${text.slice(attributeStart, attributeEnd)}=…)`;
      return at;
    }
    while (at < length && isSpace(text.charCodeAt(at))) at++;
    if (text.charCodeAt(at) !== EQUALS) continue;
    at++;
    while (at < length && isSpace(text.charCodeAt(at))) at++;
    let valueStart = at;
    let valueEnd: number;
    const quote = text.charCodeAt(at);
    if (quote === DOUBLE_QUOTE || quote === SINGLE_QUOTE) {
      const close = text.indexOf(quote === DOUBLE_QUOTE ? '"' : "'", at + 1);
      valueStart = at + 1;
      valueEnd = close < 0 ? length : close;
      at = valueEnd + 1;
    } else {
      for (let code = quote; at < length && !isSpace(code) && code !== GT; code = text.charCodeAt(++at));
      valueEnd = at;
    }
    if (!mayBeActive(text, attributeStart, attributeEnd, valueStart, valueEnd)) continue;
    scan.problem = valueProblem(text.slice(attributeStart, attributeEnd), text.slice(valueStart, valueEnd));
    if (scan.problem !== null) return at;
  }
  return length;
}

/** Most values hold neither a colon nor a character reference, so no URL scheme can hide in them. */
function mayBeActive(text: string, attributeStart: number, attributeEnd: number, valueStart: number, valueEnd: number): boolean {
  if (attributeEnd - attributeStart >= 13 && localName(text.slice(attributeStart, attributeEnd)) === "attributename") return true;
  for (let at = valueStart; at < valueEnd; at++) {
    const code = text.charCodeAt(at);
    if (code === COLON || code === AMPERSAND) return true;
  }
  return false;
}

function valueProblem(attribute: string, raw: string): string | null {
  const name = localName(attribute);
  const value = decodeReferences(raw)
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
    .replace(/[\u0000-\u0020\u00a0]+/g, "")
    .toLowerCase();
  const scheme = ACTIVE_SCHEMES.find((candidate) => value.includes(candidate));
  if (scheme !== undefined) return `a ${scheme.slice(0, -1)}: URL (in ${attribute})`;
  // <set attributeName="onclick" to="…"/> would set an event handler by animation.
  if (name === "attributename" && localName(value).startsWith("on")) return `an animation of an event-handler attribute (${attribute}="${raw.trim().slice(0, 40)}")`;
  return null;
}

function decodeReferences(value: string): string {
  if (!value.includes("&")) return value;
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);?/gi, (match: string, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
    }
    return NAMED_REFERENCES.get(body.toLowerCase()) ?? match;
  });
}
