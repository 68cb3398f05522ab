import type { Registry } from "prom-client";

/**
 * Counters and histograms for the request path. prom-client's own ones hash and validate their label object on every
 * call (several microseconds each, a dozen calls per request); these keep one cell per label combination in a Map
 * keyed by the joined label values, so an observation is a lookup and a few additions. prom-client still formats
 * them: they hand it the same `get()` shape its metrics produce.
 */
interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

interface Cell {
  labels: Record<string, string>;
  count: number;
  sum: number;
  buckets: Float64Array;
}

/** The cells of one label value and the levels below it (the values of the labels that follow). */
type Level = Map<string, Level | Cell>;

abstract class LabelledMetric {
  /**
   * One level per label, looked up value by value: finding a cell allocates nothing (a key joined from the values was
   * a new string to build and hash on every observation).
   */
  #root: Level = new Map();
  /** Every cell, in the order they were made (the exposition's order). */
  #cells: Cell[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    protected readonly bucketCount: number,
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** The cell of one label combination, created on first use; callers may keep it. */
  cell(...values: string[]): Cell {
    const depth = this.labelNames.length;
    let level = this.#root;
    // A metric without labels keeps its one cell under "".
    const last = depth === 0 ? 0 : depth - 1;
    for (let i = 0; i < last; i++) {
      const value = values[i] ?? "";
      let next = level.get(value) as Level | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const value = values[last] ?? "";
    let cell = level.get(value) as Cell | undefined;
    if (cell === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((label, index) => {
        labels[label] = values[index] ?? "";
      });
      cell = { labels, count: 0, sum: 0, buckets: new Float64Array(this.bucketCount) };
      level.set(value, cell);
      this.#cells.push(cell);
    }
    return cell;
  }

  protected cells(): readonly Cell[] {
    return this.#cells;
  }

  reset(): void {
    this.#root = new Map();
    this.#cells = [];
  }
}

export class FastCounter extends LabelledMetric {
  readonly type = "counter";
  readonly aggregator = "sum";

  constructor(name: string, help: string, labelNames: readonly string[], registry: Registry) {
    super(name, help, labelNames, 0, registry);
  }

  inc(cell: Cell, by = 1): void {
    cell.sum += by;
  }

  get(): { name: string; help: string; type: string; aggregator: string; values: MetricValue[] } {
    const values = this.cells().map((cell) => ({ value: cell.sum, labels: cell.labels }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

export class FastHistogram extends LabelledMetric {
  readonly type = "histogram";
  readonly aggregator = "sum";

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly upperBounds: readonly number[],
    registry: Registry,
  ) {
    super(name, help, labelNames, upperBounds.length, registry);
  }

  observe(cell: Cell, value: number): void {
    cell.count++;
    cell.sum += value;
    const bounds = this.upperBounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        cell.buckets[i]!++;
        return;
      }
    }
  }

  get(): { name: string; help: string; type: string; aggregator: string; values: MetricValue[] } {
    const values: MetricValue[] = [];
    for (const cell of this.cells()) {
      let cumulative = 0;
      this.upperBounds.forEach((bound, index) => {
        cumulative += cell.buckets[index]!;
        values.push({ value: cumulative, labels: { ...cell.labels, le: bound }, metricName: `${this.name}_bucket` });
      });
      values.push({ value: cell.count, labels: { ...cell.labels, le: "+Inf" }, metricName: `${this.name}_bucket` });
      values.push({ value: cell.sum, labels: cell.labels, metricName: `${this.name}_sum` });
      values.push({ value: cell.count, labels: cell.labels, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
