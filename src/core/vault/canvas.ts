// Canvas files are JSON (JSON Canvas 1.0); only their text nodes carry words worth finding.

interface CanvasNode {
  type?: unknown;
  text?: unknown;
  label?: unknown;
}

export function canvasText(json: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return "";
  }
  if (typeof parsed !== "object" || parsed === null) return "";
  const nodes = (parsed as { nodes?: unknown }).nodes;
  if (!Array.isArray(nodes)) return "";
  const parts: string[] = [];
  for (const node of nodes as CanvasNode[]) {
    if (node.type === "text" && typeof node.text === "string") parts.push(node.text);
    else if (node.type === "group" && typeof node.label === "string") parts.push(node.label);
  }
  return parts.join("\n\n");
}
