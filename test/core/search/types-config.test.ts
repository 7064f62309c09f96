// The types note: the seed's types.yaml shape read from a ```yaml block, defaults, and errors that name the key to fix.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_FUSION_WEIGHTS } from "../../../src/core/search/fusion";
import { DEFAULT_GRAPH, DEFAULT_LAMBDA, parseTypesConfig, typesBlock, TypesConfigError } from "../../../src/core/search/types-config";

const note = (yaml: string): string => `# Types\n\nSome words first.\n\n\`\`\`yaml\n${yaml}\n\`\`\`\n\nAfter.\n`;

test("the seed's types.yaml parses: types, retrieval weights, time decay; unnamed parts keep their defaults", () => {
  const config = parseTypesConfig(
    note(
      [
        "version: 1.0",
        "types:",
        "  concept:    { chunk_profile: medium, edge_defaults: [references, related_to],    retriever_weight: 0.33 }",
        "  task:       { chunk_profile: short,  edge_defaults: [depends_on, belongs_to],   retriever_weight: 0.80 }",
        "retrieval:",
        "  alpha: 0.45",
        "  beta:  0.25",
        "  gamma: 0.20",
        "  delta: 0.07",
        "  epsilon: 0.03",
        "time_decay:",
        "  lambda: 0.0025",
        "visibility_defaults: public",
      ].join("\n"),
    ),
  );
  assert.deepEqual(config.types.get("task"), { retrieverWeight: 0.8, chunkProfile: "short", edgeDefaults: ["depends_on", "belongs_to"] });
  // The seed's α (0.45) wins over our measured default (0.2); the rest are the seed's defaults too.
  assert.deepEqual(config.weights, { ...DEFAULT_FUSION_WEIGHTS, similarity: 0.45 });
  assert.equal(config.lambda, DEFAULT_LAMBDA);
  assert.equal(config.relationWeights.get("contradicts"), -0.9);
  assert.equal(config.relationWeights.get("links_to"), 1);
  assert.deepEqual(config.graph, DEFAULT_GRAPH);
});

test("relation weights and graph settings override the defaults", () => {
  const config = parseTypesConfig(note("relation_weights:\n  links_to: 0.4\n  up: 0.9\ngraph:\n  hops: 1\n  hop_decay: 0.3\n  seeds: 5"));
  assert.equal(config.relationWeights.get("links_to"), 0.4);
  assert.equal(config.relationWeights.get("up"), 0.9);
  assert.equal(config.relationWeights.get("depends_on"), 1.2);
  assert.deepEqual(config.graph, { hops: 1, hopDecay: 0.3, seeds: 5, defaultRelationWeight: DEFAULT_GRAPH.defaultRelationWeight });
});

test("every problem is named by its key, in one error", () => {
  assert.throws(
    () => parseTypesConfig(note("types:\n  task: { retriever_weight: 3, chunk_profile: huge, edge_defaults: depends_on }\ntime_decay: { lambda: -1 }\nretrival: {}")),
    (error: unknown) =>
      error instanceof TypesConfigError &&
      /types\.task\.retriever_weight must be a number from 0 to 1/.test(error.message) &&
      /types\.task\.chunk_profile must be short, medium or long/.test(error.message) &&
      /types\.task\.edge_defaults must be a list/.test(error.message) &&
      /time_decay\.lambda/.test(error.message) &&
      /Unknown key "retrival"/.test(error.message),
  );
  assert.throws(() => parseTypesConfig("# Types\n\nno block\n"), /has no ```yaml code block/);
  assert.throws(() => parseTypesConfig(note("types: [unclosed")), /does not parse/);
  assert.throws(() => parseTypesConfig(note("- a list")), /the yaml block must be a map/);
});

test("the block is the first ```yaml or ```types fence, up to its closing fence", () => {
  assert.equal(typesBlock("```js\nx\n```\n~~~types\na: 1\n~~~\n```yaml\nb: 2\n```"), "a: 1\n");
  assert.equal(typesBlock("````yaml\na: 1\n```\nb: 2\n````\n"), "a: 1\n```\nb: 2\n");
  assert.equal(typesBlock("text"), null);
});
