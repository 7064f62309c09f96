// completion/complete for the note template's `vault` and `path` and for the prompts' `vault`.
import type { CompleteRequest, CompleteResult } from "@modelcontextprotocol/server";
import type { VaultEngine } from "../core/vault/types";
import type { VaultDirectory } from "../tools/types";
import { PROMPT_NAMES } from "./prompts";
import { NOTE_URI_TEMPLATE } from "./resources";

export const MAX_COMPLETIONS = 100;

type CompleteParams = CompleteRequest["params"];

function completion(matches: readonly string[]): CompleteResult {
  return {
    completion: {
      values: matches.slice(0, MAX_COMPLETIONS),
      total: matches.length,
      hasMore: matches.length > MAX_COMPLETIONS,
    },
  };
}

function startingWith(values: readonly string[], prefix: string): string[] {
  const wanted = prefix.toLowerCase();
  return values.filter((value) => value.toLowerCase().startsWith(wanted));
}

function vaultNames(directory: VaultDirectory): string[] {
  return directory.visible().map((engine) => engine.name);
}

/** The vault named in the request's context, or the default; undefined when the user may not use it. */
function contextVault(directory: VaultDirectory, params: CompleteParams): VaultEngine | undefined {
  try {
    return directory.get(params.context?.arguments?.vault);
  } catch {
    return undefined;
  }
}

function notePaths(engine: VaultEngine | undefined): string[] {
  return engine ? engine.files().filter((file) => file.isNote).map((file) => file.path) : [];
}

function candidates(directory: VaultDirectory, params: CompleteParams): string[] {
  const { ref, argument } = params;
  if (argument.name === "vault") {
    const known = ref.type === "ref/resource" ? ref.uri === NOTE_URI_TEMPLATE : PROMPT_NAMES.includes(ref.name);
    return known ? vaultNames(directory) : [];
  }
  if (ref.type === "ref/resource" && ref.uri === NOTE_URI_TEMPLATE && argument.name === "path") {
    return notePaths(contextVault(directory, params));
  }
  return [];
}

/** Unknown references get no suggestions rather than an error: completion is a convenience. */
export function complete(directory: VaultDirectory, params: CompleteParams): CompleteResult {
  return completion(startingWith(candidates(directory, params), params.argument.value));
}
