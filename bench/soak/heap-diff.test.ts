// The snapshot comparison on small made-up heap snapshots in V8's format: nodes matched by id, code attributed to
// the function that owns it through closures, SharedFunctionInfos and longer retainer chains.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  churn,
  codeCensus,
  codeGroup,
  codeKind,
  compare,
  objectGroup,
  owningFunction,
  totalsByType,
} from "./heap-diff.ts";
import { HeapGraph } from "./heap-graph.ts";

const NODE_TYPES = ["hidden", "array", "string", "object", "code", "closure", "synthetic"];
const EDGE_TYPES = ["context", "element", "property", "internal", "hidden", "shortcut", "weak"];

interface FakeNode {
  id: number;
  type: string;
  name: string;
  size: number;
  /** [edge type, edge name, target id] */
  edges?: [string, string, number][];
}

/** A heap snapshot JSON with V8's fields (trace_node_id and detachedness too), nodes in the order given. */
function snapshot(nodes: FakeNode[]): HeapGraph {
  const strings: string[] = [];
  const str = (s: string) => {
    const at = strings.indexOf(s);
    return at >= 0 ? at : strings.push(s) - 1;
  };
  const fields = 7;
  const index = new Map(nodes.map((n, i) => [n.id, i * fields]));
  const flatNodes: number[] = [];
  const flatEdges: number[] = [];
  for (const n of nodes) {
    flatNodes.push(NODE_TYPES.indexOf(n.type), str(n.name), n.id, n.size, n.edges?.length ?? 0, 0, 0);
    for (const [type, name, to] of n.edges ?? []) {
      const target = index.get(to);
      if (target === undefined) throw new Error(`no node ${to}`);
      flatEdges.push(EDGE_TYPES.indexOf(type), type === "element" ? Number(name) : str(name), target);
    }
  }
  return new HeapGraph({
    snapshot: {
      meta: {
        node_fields: ["type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness"],
        node_types: [NODE_TYPES, "string", "number", "number", "number", "number", "number"],
        edge_fields: ["type", "name_or_index", "to_node"],
        edge_types: [EDGE_TYPES, "string_or_number", "node"],
      },
    },
    nodes: flatNodes,
    edges: flatEdges,
    strings,
  });
}

const root: FakeNode = { id: 1, type: "synthetic", name: "(GC roots)", size: 0 };
const script: FakeNode = { id: 3, type: "code", name: "/srv/dist/bundle/run.cjs", size: 40 };
/** A function `route` with its bytecode, a closure of it, and feedback reached through a feedback cell. */
const route: FakeNode[] = [
  {
    id: 5,
    type: "code",
    name: "route",
    size: 56,
    edges: [
      ["internal", "script_or_debug_info", 3],
      ["internal", "function_data", 7],
    ],
  },
  { id: 7, type: "code", name: "system / BytecodeArray", size: 300 },
  {
    id: 9,
    type: "closure",
    name: "route",
    size: 32,
    edges: [
      ["internal", "shared", 5],
      ["internal", "feedback_cell", 11],
    ],
  },
  { id: 11, type: "code", name: "system / FeedbackCell", size: 16, edges: [["internal", "value", 13]] },
  { id: 13, type: "code", name: "system / FeedbackVector", size: 120 },
];

describe("heap snapshot comparison", () => {
  it("reads V8's node and edge arrays: types, names, sizes, edges and retainers", () => {
    const graph = snapshot([root, script, ...route]);
    assert.equal(graph.count, 7);
    const closure = graph.nodeById(9) as number;
    assert.equal(graph.type(closure), "closure");
    assert.equal(graph.selfSize(closure), 32);
    assert.equal(graph.child(closure, "shared"), graph.nodeById(5));
    const vector = graph.nodeById(13) as number;
    assert.deepEqual(
      [...graph.retainers(vector)].map((r) => [graph.id(r.from), r.edge]),
      [[11, "value"]],
    );
    assert.deepEqual(Object.fromEntries(totalsByType(graph)), { synthetic: 0, code: 532, closure: 32 });
  });

  it("attributes code to its function: a SharedFunctionInfo itself, its bytecode, feedback behind its closure", () => {
    const graph = snapshot([root, script, ...route]);
    for (const id of [5, 7, 13]) {
      assert.equal(owningFunction(graph, graph.nodeById(id) as number), graph.nodeById(5), `node ${id}`);
      assert.equal(codeGroup(graph, graph.nodeById(id) as number), "route (run.cjs)");
    }
    assert.equal(codeKind(graph, graph.nodeById(5) as number), "SharedFunctionInfo");
    assert.equal(codeKind(graph, graph.nodeById(7) as number), "system / BytecodeArray");
  });

  it("leaves code that no function retains in a group of its own", () => {
    const graph = snapshot([root, script, ...route, { id: 40, type: "code", name: "system / ScopeInfo", size: 64 }]);
    assert.equal(codeGroup(graph, graph.nodeById(40) as number), "(no function)");
  });

  it("does not climb through weak edges or past the synthetic roots", () => {
    const graph = snapshot([
      { ...root, edges: [["element", "0", 20]] },
      script,
      ...route,
      // Optimized code held weakly by route's feedback and strongly by a root only: it belongs to no function.
      { id: 20, type: "code", name: "", size: 900 },
      { id: 13, type: "code", name: "system / FeedbackVector", size: 120, edges: [["weak", "0", 20]] },
    ]);
    assert.equal(owningFunction(graph, graph.nodeById(20) as number), undefined);
  });

  it("counts what is new and what is gone by node id, grouped, the largest net gain first", () => {
    const earlier = snapshot([root, script, ...route, { id: 30, type: "object", name: "Entry", size: 40 }]);
    // Later: route's bytecode recompiled (7 gone, 8 new), two new Entry objects, and a new string.
    const later = snapshot([
      root,
      script,
      {
        id: 5,
        type: "code",
        name: "route",
        size: 56,
        edges: [
          ["internal", "script_or_debug_info", 3],
          ["internal", "function_data", 8],
        ],
      },
      { id: 8, type: "code", name: "system / BytecodeArray", size: 310 },
      ...route.slice(2),
      { id: 30, type: "object", name: "Entry", size: 40 },
      { id: 31, type: "object", name: "Entry", size: 40 },
      { id: 32, type: "object", name: "Entry", size: 40 },
      { id: 33, type: "string", name: "hello", size: 24 },
    ]);
    const byKind = compare(earlier, later, objectGroup);
    assert.deepEqual(
      byKind.map((c) => [c.group, c.added.count, c.added.bytes, c.freed.count, c.freed.bytes]),
      [
        ["object Entry", 2, 80, 0, 0],
        ["string", 1, 24, 0, 0],
        ["code system / BytecodeArray", 1, 310, 1, 300],
      ],
    );
    const byFunction = compare(earlier, later, (graph, node) =>
      graph.type(node) === "code" ? codeGroup(graph, node) : undefined,
    );
    assert.deepEqual(
      byFunction.map((c) => [c.group, c.added.bytes, c.freed.bytes]),
      [["route (run.cjs)", 310, 300]],
    );
  });

  it("tells code recompiled interval after interval from code compiled once", () => {
    const change = (group: string, added: number, freed: number) => ({
      group,
      added: { count: added > 0 ? 1 : 0, bytes: added },
      freed: { count: freed > 0 ? 1 : 0, bytes: freed },
    });
    const result = churn([
      [change("parse (run.cjs)", 900, 800), change("route (run.cjs)", 500, 0)],
      [change("parse (run.cjs)", 900, 900), change("route (run.cjs)", 0, 0)],
      [change("parse (run.cjs)", 0, 900), change("start (run.cjs)", 0, 300)],
    ]);
    assert.deepEqual(
      result.map((c) => [c.group, c.intervalsFreed, c.intervalsAdded, c.freed, c.added]),
      [
        ["parse (run.cjs)", 3, 2, 2600, 1800],
        ["start (run.cjs)", 1, 0, 300, 0],
        ["route (run.cjs)", 0, 1, 0, 500],
      ],
    );
  });

  it("counts functions, scripts, optimized and baseline code", () => {
    const graph = snapshot([
      { ...root, edges: [["element", "0", 50]] },
      script,
      ...route,
      { id: 50, type: "hidden", name: "system / WeakArrayList", size: 64, edges: [["element", "0", 3]] },
      { id: 51, type: "synthetic", name: "(Strong roots)", size: 0, edges: [["internal", "script_list", 50]] },
      { id: 60, type: "code", name: "", size: 88, edges: [["internal", "deoptimization_data", 61]] },
      { id: 61, type: "code", name: "(code deopt data)", size: 200 },
      { id: 62, type: "code", name: "", size: 88, edges: [["internal", "interpreter_data", 7]] },
    ]);
    assert.deepEqual(codeCensus(graph), { functions: 1, scripts: 1, optimized: 1, baseline: 1 });
  });
});
