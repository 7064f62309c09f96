// The serialised form of a NoteIndex, checked before MiniSearch sees it: a snapshot from another
// version or a damaged one must be refused (and rebuilt), never half-loaded.
import type { AsPlainObject } from "minisearch";
import { SnapshotError } from "./snapshot";

export interface SerializedNoteIndex {
  version: number;
  nextId: number;
  ids: number[];
  paths: string[];
  engine: AsPlainObject;
}

/** Throws a SnapshotError ("version" or "format") unless `json` has the shape `toJSON` writes. */
export function checkSerialized(json: unknown, version: number, fields: readonly string[]): SerializedNoteIndex {
  if (!isRecord(json)) throw new SnapshotError("format", "Serialised index is not an object.");
  if (json.version !== version) {
    throw new SnapshotError("version", `Serialised index version ${String(json.version)} is not ${version}.`);
  }
  const { nextId, ids, paths, engine } = json;
  if (typeof nextId !== "number" || !Array.isArray(ids) || !Array.isArray(paths) || ids.length !== paths.length) {
    throw new SnapshotError("format", "Serialised index lacks a consistent id → path map.");
  }
  if (!ids.every((id) => Number.isInteger(id) && id < nextId) || !paths.every((path) => typeof path === "string")) {
    throw new SnapshotError("format", "Serialised index has a malformed id → path map.");
  }
  if (new Set(paths).size !== paths.length) throw new SnapshotError("format", "Serialised index lists a path twice.");
  if (!isRecord(engine) || !Array.isArray(engine.index) || !isRecord(engine.documentIds) || !isRecord(engine.fieldLength)) {
    throw new SnapshotError("format", "Serialised index has no MiniSearch state.");
  }
  if (engine.serializationVersion !== 2) {
    throw new SnapshotError("version", `Serialised MiniSearch state has version ${String(engine.serializationVersion)}, not 2.`);
  }
  const fieldIds = engine.fieldIds;
  if (!isRecord(fieldIds) || Object.keys(fieldIds).length !== fields.length || fields.some((field, i) => fieldIds[field] !== i)) {
    throw new SnapshotError("version", "Serialised index was built with other fields.");
  }
  if (typeof engine.documentCount !== "number" || typeof engine.nextId !== "number" || !Array.isArray(engine.averageFieldLength)) {
    throw new SnapshotError("format", "Serialised MiniSearch state is incomplete.");
  }
  return { version, nextId, ids: ids as number[], paths, engine: engine as unknown as AsPlainObject };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
