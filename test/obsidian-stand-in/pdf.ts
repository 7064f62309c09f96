// Obsidian's loadPdfJs() resolves to the app's pdf.js (window.pdfjsLib, its worker set up by the app).
// The stand-in serves unpdf's build of pdf.js, which has the same getDocument API and runs without a
// worker file.
export async function loadPdfJs(): Promise<unknown> {
  return import("unpdf/pdfjs");
}
