// Compares heap snapshots of one process taken at the soak's quiet moments (kept with --keep-snapshots):
//   node --import tsx bench/soak/compare-heaps.ts A.heapsnapshot B.heapsnapshot [C.heapsnapshot ...] [--top 20]
// Prints each snapshot's MB by node type (so code levelling off or not shows across the moments), then for the first
// and the last: what was added and freed, by kind and, for V8's code, by function (heap-diff.ts); with three
// snapshots or more, the functions whose code was freed in the most intervals between consecutive ones (recompiled).
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import {
  churn,
  codeCensus,
  codeGroup,
  codeKind,
  compare,
  type GroupChange,
  objectGroup,
  totalsByType,
} from "./heap-diff.ts";
import { HeapGraph } from "./heap-graph.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "20" } },
});
if (positionals.length < 2) throw new Error("usage: compare-heaps.ts EARLIER.heapsnapshot LATER.heapsnapshot [...]");
const top = Number(values.top);

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(3);
const load = (file: string) => new HeapGraph(JSON.parse(readFileSync(file, "utf8")));

const graphs = positionals.map((file) => ({ file, graph: load(file) }));
const types = [...new Set(graphs.flatMap(({ graph }) => [...totalsByType(graph).keys()]))];
console.log(`MB by node type (self sizes), ${graphs.length} snapshots`);
console.log(`| type | ${graphs.map(({ file }) => basename(file, ".heapsnapshot")).join(" | ")} |`);
console.log(`| --- | ${graphs.map(() => "---").join(" | ")} |`);
const totals = graphs.map(({ graph }) => totalsByType(graph));
const rows = types
  .map((type) => ({ type, sizes: totals.map((t) => t.get(type) ?? 0) }))
  .sort((a, b) => (b.sizes.at(-1) ?? 0) - (a.sizes.at(-1) ?? 0));
for (const { type, sizes } of rows) console.log(`| ${type} | ${sizes.map(mb).join(" | ")} |`);
const all = totals.map((t) => [...t.values()].reduce((sum, bytes) => sum + bytes, 0));
console.log(`| all | ${all.map(mb).join(" | ")} |`);
const censuses = graphs.map(({ graph }) => codeCensus(graph));
for (const [label, key] of [
  ["functions (SharedFunctionInfos)", "functions"],
  ["scripts", "scripts"],
  ["optimized code objects (TurboFan)", "optimized"],
  ["baseline code objects (Sparkplug)", "baseline"],
] as const) {
  console.log(`| ${label} | ${censuses.map((c) => c[key]).join(" | ")} |`);
}

function table(title: string, changes: GroupChange[]): void {
  const net = changes.reduce((sum, c) => sum + c.added.bytes - c.freed.bytes, 0);
  console.log(`\n${title} (net ${mb(net)} MB; the ${top} largest net gains, then the ${top} largest losses)`);
  console.log("| net MB | added MB (objects) | freed MB (objects) | group |\n| --- | --- | --- | --- |");
  const shown = [...changes.slice(0, top), ...changes.slice(Math.max(top, changes.length - top)).reverse()];
  for (const c of shown) {
    const line = `${mb(c.added.bytes - c.freed.bytes)} | ${mb(c.added.bytes)} (${c.added.count})`;
    console.log(`| ${line} | ${mb(c.freed.bytes)} (${c.freed.count}) | ${c.group} |`);
  }
}

const first = graphs[0] as (typeof graphs)[number];
const last = graphs.at(-1) as (typeof graphs)[number];
const between = `${basename(first.file)} -> ${basename(last.file)}`;
table(`Everything by kind, ${between}`, compare(first.graph, last.graph, objectGroup));
const code = (group: (graph: HeapGraph, node: number) => string) => (graph: HeapGraph, node: number) =>
  graph.type(node) === "code" ? group(graph, node) : undefined;
table(`Code by kind, ${between}`, compare(first.graph, last.graph, code(codeKind)));
table(`Code by function (script), ${between}`, compare(first.graph, last.graph, code(codeGroup)));

if (graphs.length >= 3) {
  const intervals = graphs
    .slice(1)
    .map((later, i) => compare((graphs[i] as typeof later).graph, later.graph, code(codeGroup)));
  const recompiled = churn(intervals).filter((c) => c.intervalsFreed >= 2);
  console.log(
    `\nCode freed in 2 or more of the ${intervals.length} intervals (recompiled), by function; the ${top} most`,
  );
  console.log("| intervals freed / added | freed MB | added MB | function (script) |\n| --- | --- | --- | --- |");
  for (const c of recompiled.slice(0, top)) {
    console.log(`| ${c.intervalsFreed} / ${c.intervalsAdded} | ${mb(c.freed)} | ${mb(c.added)} | ${c.group} |`);
  }
  const total = (pick: (c: (typeof recompiled)[number]) => number) => recompiled.reduce((sum, c) => sum + pick(c), 0);
  console.log(
    `${recompiled.length} functions; ${mb(total((c) => c.freed))} MB freed, ${mb(total((c) => c.added))} MB added`,
  );
}
