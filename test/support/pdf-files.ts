// PDFs written byte by byte for the cases a printer never makes: encrypted, damaged, and built to be
// slow to parse (a small file whose compressed content stream expands to many megabytes of text).
import { deflateSync } from "node:zlib";

/** A PDF of the given objects (bodies without "n 0 obj"), object 1 the catalog, with an exact xref. */
function writePdf(objects: (string | Buffer)[], trailerExtra = ""): Buffer {
  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((body, index) => {
    offsets.push(length);
    const chunk = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`, "latin1"), typeof body === "string" ? Buffer.from(body, "latin1") : body, Buffer.from("\nendobj\n", "latin1")]);
    parts.push(chunk);
    length += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, "0000000000 65535 f \n", ...offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`)].join("");
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra}>>\nstartxref\n${length}\n%%EOF\n`, "latin1"));
  return Buffer.concat(parts);
}

function stream(content: Buffer, compress: boolean): Buffer {
  const data = compress ? deflateSync(content, { level: 9 }) : content;
  return Buffer.concat([Buffer.from(`<< /Length ${data.length}${compress ? " /Filter /FlateDecode" : ""} >>\nstream\n`, "latin1"), data, Buffer.from("\nendstream", "latin1")]);
}

/** One page per text, Helvetica at 1 pt so long texts stay on the page (pdf.js drops text outside it), one line per "\n". */
export function simplePdf(texts: string[]): Buffer {
  const pageIds = texts.map((_, index) => 4 + index * 2);
  const objects: (string | Buffer)[] = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${texts.length} >>`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  texts.forEach((text, index) => {
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + index * 2} 0 R >>`);
    const lines = text.split("\n").map((line) => `(${line.replace(/[()\\]/g, "\\$&")}) Tj T*`);
    objects.push(stream(Buffer.from(`BT /F1 1 Tf 1.2 TL 10 780 Td ${lines.join(" ")} ET`, "latin1"), false));
  });
  return writePdf(objects);
}

/**
 * A single page whose content stream, a few hundred kilobytes compressed, expands to `megabytes` MB of
 * text-showing operators: pdf.js spends seconds on it.
 */
export function slowPdf(megabytes: number): Buffer {
  const unit = "(slow text ahead) Tj 0 -1 Td\n";
  const content = Buffer.from(`BT /F1 1 Tf 0 700 Td\n${unit.repeat(Math.ceil((megabytes * 1024 * 1024) / unit.length))}ET`, "latin1");
  return writePdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
    stream(content, true),
  ]);
}

/** Encrypted with the standard handler and a user password (whose check fails for the empty one). */
export function encryptedPdf(): Buffer {
  const hex = (byte: number) => byte.toString(16).padStart(2, "0").repeat(32);
  return writePdf(
    ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>", `<< /Filter /Standard /V 1 /R 2 /O <${hex(0x5a)}> /U <${hex(0xa5)}> /P -4 >>`],
    "/Encrypt 3 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>] ",
  );
}

/** Looks like a PDF for eight bytes, then is not one. */
export function damagedPdf(): Buffer {
  return Buffer.from("%PDF-1.7\nthis is not a pdf body at all, no objects, no xref, nothing\n", "latin1");
}
