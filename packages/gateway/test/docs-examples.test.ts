// The docs' examples must work right after `npm start`, whose only backend is the Ollama simulator
// (scripts/start.mjs) behind examples/gateway.toml: every model an example asks for is one the simulator serves, or
// an alias or a fallback of the example config that leads to one.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parse } from "smol-toml";

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");

/** Model names in the code blocks of a Markdown file: JSON bodies, SDK calls, models.retrieve(). */
function modelsInExamples(markdown: string): string[] {
  const blocks = markdown.match(/```(?:sh|ts)\n[\s\S]*?```/g) ?? [];
  const names = blocks.flatMap((block) =>
    [...block.matchAll(/"model":\s*"([^"]+)"|model:\s*"([^"]+)"|retrieve\("([^"]+)"\)/g)].map(
      (match) => match[1] ?? match[2] ?? match[3] ?? "",
    ),
  );
  return [...new Set(names)];
}

function simulatedModels(): string[] {
  const script = read("scripts/start.mjs");
  return [...script.matchAll(/"--(?:embedding-)?model", "([^"]+)"/g)].map((match) => match[1] ?? "");
}

describe("the docs' examples under npm start", () => {
  const example = parse(read("examples/gateway.toml")) as {
    routing?: { aliases?: Record<string, string>; fallbacks?: Record<string, string[]> };
  };
  const aliases = new Map(Object.entries(example.routing?.aliases ?? {}));
  const fallbacks = new Map(Object.entries(example.routing?.fallbacks ?? {}));
  const simulated = new Set(simulatedModels());

  function servable(model: string, depth = 0): boolean {
    if (depth > 3) return false;
    const target = aliases.get(model) ?? model;
    if (simulated.has(target)) return true;
    return (fallbacks.get(model) ?? []).some((next) => servable(next, depth + 1));
  }

  it("the simulator serves models", () => {
    assert.ok(simulated.size >= 3, `models found in scripts/start.mjs: ${[...simulated].join(", ")}`);
  });

  for (const doc of ["README.md", "docs/gateway.md"]) {
    it(`every model in ${doc}'s examples is served`, () => {
      const models = modelsInExamples(read(doc));
      assert.deepEqual(
        models.filter((model) => !servable(model)),
        [],
        `simulated: ${[...simulated].join(", ")}`,
      );
    });
  }

  it("the example config's alias and fallback lead to simulated models", () => {
    for (const model of [...aliases.keys(), ...fallbacks.keys()]) assert.ok(servable(model), model);
  });
});
