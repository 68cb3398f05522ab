// What the live heap gained between two heap snapshots of one process (the soak's quiet moments, kept with
// --keep-snapshots), compared by node id: objects alive in the later snapshot that did not exist in the earlier
// (new) and objects of the earlier one that are gone (freed), grouped by kind. V8's compiled code (snapshot type
// `code`: bytecode, baseline and optimized code, feedback vectors, scope infos, shared function infos...) is grouped
// by the function it belongs to, found through the retainers up to its SharedFunctionInfo, and that function's
// script: a function compiled again and again shows as new and freed code of one function, code still being
// compiled for the first time as new only. Pure over HeapGraph; main.ts-free so that it is tested on small graphs.
import { basename } from "node:path";
import type { HeapGraph } from "./heap-graph.ts";

/** Bytes and objects of one group. */
interface Tally {
  count: number;
  bytes: number;
}

export interface GroupChange {
  group: string;
  added: Tally;
  freed: Tally;
}

/** A node of type code is a SharedFunctionInfo when it points to its script and its bytecode or builtin. */
function isSharedFunctionInfo(graph: HeapGraph, node: number): boolean {
  return graph.type(node) === "code" && graph.child(node, "script_or_debug_info") !== undefined;
}

const RETAINER_DEPTH = 4;

/** The SharedFunctionInfo a code object belongs to: itself, its closure's, or the nearest one among its retainers. */
export function owningFunction(graph: HeapGraph, node: number): number | undefined {
  let frontier = [node];
  const seen = new Set(frontier);
  for (let depth = 0; depth <= RETAINER_DEPTH && frontier.length > 0; depth++) {
    const next: number[] = [];
    for (const at of frontier) {
      if (isSharedFunctionInfo(graph, at)) return at;
      if (graph.type(at) === "closure") {
        const shared = graph.child(at, "shared");
        if (shared !== undefined) return shared;
      }
      for (const { from } of graph.retainers(at)) {
        if (graph.type(from) === "synthetic" || seen.has(from)) continue;
        seen.add(from);
        next.push(from);
      }
    }
    frontier = next;
  }
  return undefined;
}

/** "name (script file)" of a SharedFunctionInfo. */
function functionLabel(graph: HeapGraph, shared: number): string {
  const script = graph.child(shared, "script_or_debug_info");
  const file = script === undefined ? "" : basename(graph.name(script));
  // V8 names a SharedFunctionInfo by its function; an anonymous one is "(shared function info)".
  const name = graph.name(shared);
  return `${name === "" || name === "(shared function info)" ? "(anonymous)" : name} (${file || "no script"})`;
}

/** What a code object is: V8's own name for it ("system / BytecodeArray", "(code deopt data)"...). */
export function codeKind(graph: HeapGraph, node: number): string {
  if (isSharedFunctionInfo(graph, node)) return "SharedFunctionInfo";
  const name = graph.name(node);
  if (name.startsWith("(code for ")) return "(code for ...)";
  if (name.startsWith("system / ") || name.startsWith("(")) return name;
  return name === "" ? "(unnamed code)" : "(named code)";
}

/** The group of any node: its type and, for objects, closures and the like, its constructor or name. */
export function objectGroup(graph: HeapGraph, node: number): string {
  const type = graph.type(node);
  if (type === "code") return `code ${codeKind(graph, node)}`;
  if (type === "string" || type === "concatenated string" || type === "sliced string" || type === "number") {
    return type;
  }
  const name = graph.name(node);
  return `${type} ${name.length > 60 ? `${name.slice(0, 57)}...` : name}`;
}

/** The function (and script) a code node belongs to, or "(no function)". */
export function codeGroup(graph: HeapGraph, node: number): string {
  const shared = owningFunction(graph, node);
  return shared === undefined ? "(no function)" : functionLabel(graph, shared);
}

/** Counts that tell code compiled per message (functions, scripts) from the JIT tiering up (optimized, baseline). */
export interface CodeCensus {
  /** SharedFunctionInfos: grows when code is generated (new Function, eval, a new script). */
  functions: number;
  /** Scripts on V8's script list. */
  scripts: number;
  /** Code objects with deoptimization data: TurboFan's optimized functions. */
  optimized: number;
  /** Code objects with interpreter data: Sparkplug's baseline code. */
  baseline: number;
}

export function codeCensus(graph: HeapGraph): CodeCensus {
  const census: CodeCensus = { functions: 0, scripts: 0, optimized: 0, baseline: 0 };
  for (let node = 0; node < graph.count; node++) {
    if (isSharedFunctionInfo(graph, node)) census.functions++;
    else if (graph.type(node) === "code" && graph.name(node) === "") {
      if (graph.child(node, "deoptimization_data") !== undefined) census.optimized++;
      else if (graph.child(node, "interpreter_data") !== undefined) census.baseline++;
    }
    if (
      graph.name(node) === "system / WeakArrayList" &&
      [...graph.retainers(node)].some((r) => r.edge === "script_list")
    ) {
      for (const { to } of graph.edges(node)) if (graph.type(to) === "code") census.scripts++;
    }
  }
  return census;
}

/** Bytes by node type (object, code, string, ...) of one snapshot. */
export function totalsByType(graph: HeapGraph): Map<string, number> {
  const totals = new Map<string, number>();
  for (let node = 0; node < graph.count; node++) {
    const type = graph.type(node);
    totals.set(type, (totals.get(type) ?? 0) + graph.selfSize(node));
  }
  return totals;
}

/**
 * Objects of `later` whose id `earlier` does not have (added) and objects of `earlier` gone from `later` (freed),
 * grouped by `group` (called with the graph the node is in), the largest net change first.
 */
export function compare(
  earlier: HeapGraph,
  later: HeapGraph,
  group: (graph: HeapGraph, node: number) => string | undefined,
): GroupChange[] {
  const changes = new Map<string, GroupChange>();
  const tally = (graph: HeapGraph, node: number, side: "added" | "freed") => {
    const name = group(graph, node);
    if (name === undefined) return;
    let change = changes.get(name);
    if (change === undefined) {
      change = { group: name, added: { count: 0, bytes: 0 }, freed: { count: 0, bytes: 0 } };
      changes.set(name, change);
    }
    change[side].count++;
    change[side].bytes += graph.selfSize(node);
  };
  for (let node = 0; node < later.count; node++) {
    if (earlier.nodeById(later.id(node)) === undefined) tally(later, node, "added");
  }
  for (let node = 0; node < earlier.count; node++) {
    if (later.nodeById(earlier.id(node)) === undefined) tally(earlier, node, "freed");
  }
  const net = (c: GroupChange) => c.added.bytes - c.freed.bytes;
  return [...changes.values()].sort((a, b) => net(b) - net(a) || b.added.bytes - a.added.bytes);
}

/** One group's code over consecutive snapshots: in how many intervals it gained and lost objects, and how much. */
export interface Churn {
  group: string;
  intervalsAdded: number;
  intervalsFreed: number;
  added: number;
  freed: number;
}

/**
 * Per group, across the intervals between consecutive snapshots (each a `compare` result): a function whose code is
 * freed and added again interval after interval is being recompiled (deoptimized and reoptimized, or its bytecode
 * flushed); one that only gains, early, is compiled for the first time. The most often freed first.
 */
export function churn(intervals: readonly GroupChange[][]): Churn[] {
  const byGroup = new Map<string, Churn>();
  for (const changes of intervals) {
    for (const { group, added, freed } of changes) {
      let c = byGroup.get(group);
      if (c === undefined) {
        c = { group, intervalsAdded: 0, intervalsFreed: 0, added: 0, freed: 0 };
        byGroup.set(group, c);
      }
      if (added.bytes > 0) c.intervalsAdded++;
      if (freed.bytes > 0) c.intervalsFreed++;
      c.added += added.bytes;
      c.freed += freed.bytes;
    }
  }
  return [...byGroup.values()].sort((a, b) => b.intervalsFreed - a.intervalsFreed || b.freed - a.freed);
}
