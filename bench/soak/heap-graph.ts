// A V8 heap snapshot (the .heapsnapshot JSON) as flat typed arrays: each node's type, name, id and self size, its
// edges, and the reverse edges (who retains a node), so that the objects of two snapshots can be compared by node
// id and V8's compiled code attributed to the function it belongs to. Pure: parsing and walking, no I/O.

interface SnapshotJson {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** Edge types whose name_or_index is an array index rather than a string. */
const INDEXED_EDGES = new Set(["element", "hidden"]);

export class HeapGraph {
  readonly count: number;
  readonly #types: string[];
  readonly #edgeTypes: string[];
  readonly #strings: string[];
  readonly #type: Uint8Array;
  readonly #name: Uint32Array;
  readonly #id: Float64Array;
  readonly #size: Float64Array;
  /** Edges of node i: firstEdge[i] .. firstEdge[i + 1] in edgeType / edgeName / edgeTo. */
  readonly #firstEdge: Uint32Array;
  readonly #edgeType: Uint8Array;
  readonly #edgeName: Uint32Array;
  readonly #edgeTo: Uint32Array;
  /** Retainers of node i: firstRetainer[i] .. firstRetainer[i + 1] in retainerEdge (indices into the edges). */
  readonly #firstRetainer: Uint32Array;
  readonly #retainerEdge: Uint32Array;
  readonly #edgeFrom: Uint32Array;
  #byId: Map<number, number> | undefined;

  constructor(json: SnapshotJson) {
    const { meta } = json.snapshot;
    const nodeFields = meta.node_fields.length;
    const edgeFields = meta.edge_fields.length;
    const field = (name: string, fields: string[]) => {
      const at = fields.indexOf(name);
      if (at < 0) throw new Error(`heap snapshot without the ${name} field`);
      return at;
    };
    const [typeAt, nameAt, idAt, sizeAt, edgeCountAt] = ["type", "name", "id", "self_size", "edge_count"].map((f) =>
      field(f, meta.node_fields),
    ) as [number, number, number, number, number];
    const [edgeTypeAt, edgeNameAt, edgeToAt] = ["type", "name_or_index", "to_node"].map((f) =>
      field(f, meta.edge_fields),
    ) as [number, number, number];
    this.#types = meta.node_types[0];
    this.#edgeTypes = meta.edge_types[0];
    this.#strings = json.strings;
    const { nodes, edges } = json;
    const count = nodes.length / nodeFields;
    const edgeCount = edges.length / edgeFields;
    this.count = count;
    this.#type = new Uint8Array(count);
    this.#name = new Uint32Array(count);
    this.#id = new Float64Array(count);
    this.#size = new Float64Array(count);
    this.#firstEdge = new Uint32Array(count + 1);
    this.#edgeType = new Uint8Array(edgeCount);
    this.#edgeName = new Uint32Array(edgeCount);
    this.#edgeTo = new Uint32Array(edgeCount);
    this.#edgeFrom = new Uint32Array(edgeCount);
    let edge = 0;
    for (let i = 0; i < count; i++) {
      const at = i * nodeFields;
      this.#type[i] = nodes[at + typeAt] as number;
      this.#name[i] = nodes[at + nameAt] as number;
      this.#id[i] = nodes[at + idAt] as number;
      this.#size[i] = nodes[at + sizeAt] as number;
      this.#firstEdge[i] = edge;
      const end = edge + (nodes[at + edgeCountAt] as number);
      for (; edge < end; edge++) {
        const e = edge * edgeFields;
        this.#edgeType[edge] = edges[e + edgeTypeAt] as number;
        this.#edgeName[edge] = edges[e + edgeNameAt] as number;
        this.#edgeTo[edge] = (edges[e + edgeToAt] as number) / nodeFields;
        this.#edgeFrom[edge] = i;
      }
    }
    this.#firstEdge[count] = edge;
    // Reverse edges, grouped by target (a counting sort).
    this.#firstRetainer = new Uint32Array(count + 1);
    for (let e = 0; e < edgeCount; e++) {
      const slot = (this.#edgeTo[e] as number) + 1;
      this.#firstRetainer[slot] = (this.#firstRetainer[slot] as number) + 1;
    }
    for (let i = 0; i < count; i++) {
      this.#firstRetainer[i + 1] = (this.#firstRetainer[i + 1] as number) + (this.#firstRetainer[i] as number);
    }
    const fill = this.#firstRetainer.slice(0, count);
    this.#retainerEdge = new Uint32Array(edgeCount);
    for (let e = 0; e < edgeCount; e++) {
      const to = this.#edgeTo[e] as number;
      this.#retainerEdge[fill[to] as number] = e;
      fill[to] = (fill[to] as number) + 1;
    }
  }

  type(node: number): string {
    return this.#types[this.#type[node] as number] ?? "?";
  }
  name(node: number): string {
    return this.#strings[this.#name[node] as number] ?? "";
  }
  id(node: number): number {
    return this.#id[node] as number;
  }
  selfSize(node: number): number {
    return this.#size[node] as number;
  }

  /** The node with this id, if the snapshot has it. */
  nodeById(id: number): number | undefined {
    if (this.#byId === undefined) {
      this.#byId = new Map();
      for (let i = 0; i < this.count; i++) this.#byId.set(this.#id[i] as number, i);
    }
    return this.#byId.get(id);
  }

  edgeName(edge: number): string {
    const type = this.edgeType(edge);
    const raw = this.#edgeName[edge] as number;
    return INDEXED_EDGES.has(type) ? String(raw) : (this.#strings[raw] ?? "");
  }
  edgeType(edge: number): string {
    return this.#edgeTypes[this.#edgeType[edge] as number] ?? "?";
  }

  /** The edges of `node`: their names and targets. */
  *edges(node: number): Generator<{ to: number; edge: string }> {
    for (let e = this.#firstEdge[node] as number; e < (this.#firstEdge[node + 1] as number); e++) {
      yield { to: this.#edgeTo[e] as number, edge: this.edgeName(e) };
    }
  }

  /** The first node `node` points to through an edge named `name`, if any. */
  child(node: number, name: string): number | undefined {
    for (let e = this.#firstEdge[node] as number; e < (this.#firstEdge[node + 1] as number); e++) {
      if (this.edgeName(e) === name) return this.#edgeTo[e];
    }
    return undefined;
  }

  /** Nodes holding an edge to `node`, weak edges left out, with each edge's name. */
  *retainers(node: number): Generator<{ from: number; edge: string }> {
    for (let r = this.#firstRetainer[node] as number; r < (this.#firstRetainer[node + 1] as number); r++) {
      const e = this.#retainerEdge[r] as number;
      if (this.edgeType(e) === "weak") continue;
      yield { from: this.#edgeFrom[e] as number, edge: this.edgeName(e) };
    }
  }
}
