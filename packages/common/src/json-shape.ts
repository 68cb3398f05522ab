/**
 * Bounds on the shape of a JSON request body, checked on the raw bytes as they arrive, before JSON.parse runs.
 * JSON.parse's time and memory grow with nesting and with the number of values, not only with the byte count: a
 * body within the size limit but nested millions of levels deep, or holding millions of tiny values, would otherwise
 * block the event loop for seconds.
 */
export interface ShapeLimits {
  /** Deepest nesting of arrays and objects (serde_json, which Nexus uses, stops at 128 too). */
  maxDepth: number;
  /** Values in the whole body: containers plus array items and object members (roughly, its commas). */
  maxValues: number;
  /** Members of one object. Objects with many distinct keys are the slowest thing JSON.parse builds. */
  maxKeys: number;
}

export const SHAPE_LIMITS: ShapeLimits = { maxDepth: 128, maxValues: 100_000, maxKeys: 1_000 };

export type ShapeProblem = "depth" | "values" | "keys" | "unbalanced";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
/** Bytes of a string looked at one by one before Buffer.indexOf takes over. */
const SHORT_STRING_BYTES = 64;

/**
 * A single pass over the body, chunk by chunk, tracking only what the limits need: string state, depth, and counts.
 * Inside strings it looks at the first bytes itself, then jumps from one quote or backslash to the next with
 * Buffer.indexOf (native), so long texts cost almost nothing; both positions are cached, so a string full of escapes
 * stays linear. It does not validate JSON:
 * JSON.parse does that afterwards, on a body whose size in every dimension is now bounded.
 */
export class JsonShapeScanner {
  #depth = 0;
  #values = 0;
  #inString = false;
  #escaped = false;
  /** Members counted so far in each open object (-1 for an open array). */
  readonly #members: Int32Array;

  constructor(private readonly limits: ShapeLimits = SHAPE_LIMITS) {
    this.#members = new Int32Array(limits.maxDepth + 1);
  }

  /**
   * Ready for another body, as a new scanner would be. The member counts need no clearing: an object's or array's
   * slot is written when it opens, before it is read, and depth 0 (outside any) is never written.
   */
  reset(): this {
    this.#depth = 0;
    this.#values = 0;
    this.#inString = false;
    this.#escaped = false;
    return this;
  }

  /** Values seen so far (containers and commas). */
  get values(): number {
    return this.#values;
  }

  /** Scans the next chunk; returns the first limit exceeded, if any (scanning should then stop). */
  push(chunk: Buffer): ShapeProblem | undefined {
    const end = chunk.length;
    let quote = -1;
    let backslash = -1;
    let i = 0;
    while (i < end) {
      if (this.#inString) {
        if (this.#escaped) {
          this.#escaped = false;
          i++;
          continue;
        }
        // Most strings are short (keys, roles, small values), and texts full of escapes are short runs between
        // backslashes: looking at the bytes here (an escape skips two) beats a native call each.
        const near = Math.min(end, i + SHORT_STRING_BYTES);
        let j = i;
        while (j < near) {
          const b = chunk[j];
          if (b === BACKSLASH) j += 2;
          else if (b === QUOTE) break;
          else j++;
        }
        if (j < near) {
          this.#inString = false;
          i = j + 1;
          continue;
        }
        if (j > end) {
          // The chunk ended on a backslash: the next one starts escaped.
          this.#escaped = true;
          i = end;
          continue;
        }
        i = j;
        if (i === end) continue;
        if (quote < i) quote = indexOrEnd(chunk, QUOTE, i);
        if (backslash < i) backslash = indexOrEnd(chunk, BACKSLASH, i);
        if (backslash < quote) {
          this.#escaped = true;
          i = backslash + 1;
        } else if (quote < end) {
          this.#inString = false;
          i = quote + 1;
        } else {
          i = end;
        }
        continue;
      }
      const byte = chunk[i++];
      if (byte === QUOTE) {
        this.#inString = true;
      } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
        if (++this.#depth > this.limits.maxDepth) return "depth";
        if (++this.#values > this.limits.maxValues) return "values";
        this.#members[this.#depth] = byte === OPEN_OBJECT ? 1 : -1;
      } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
        if (--this.#depth < 0) return "unbalanced";
      } else if (byte === COMMA) {
        if (++this.#values > this.limits.maxValues) return "values";
        const members = this.#members[this.#depth]!;
        if (members > 0) {
          this.#members[this.#depth] = members + 1;
          if (members + 1 > this.limits.maxKeys) return "keys";
        }
      }
    }
    return undefined;
  }
}

const wholeBodyScanners = new WeakMap<ShapeLimits, JsonShapeScanner>();

/**
 * The first limit a whole body exceeds, if any. The scan is synchronous, so one scanner per limits serves every body,
 * reset each time (a new one would allocate its member counts per request).
 */
export function wholeBodyShapeProblem(body: Buffer, limits: ShapeLimits = SHAPE_LIMITS): ShapeProblem | undefined {
  let scanner = wholeBodyScanners.get(limits);
  if (scanner === undefined) {
    scanner = new JsonShapeScanner(limits);
    wholeBodyScanners.set(limits, scanner);
  }
  return scanner.reset().push(body);
}

function indexOrEnd(chunk: Buffer, byte: number, from: number): number {
  const found = chunk.indexOf(byte, from);
  return found === -1 ? chunk.length : found;
}
