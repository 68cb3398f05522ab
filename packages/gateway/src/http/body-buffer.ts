/** Bodies up to this size are kept as the chunks Node delivered them in, and joined once at the end. */
const SHARED_FROM_BYTES = 256 * 1024;

/**
 * Collects a request body. A large body moves into memory shared with the JSON parse worker, which reads the bytes
 * where they are (joining megabytes at the end and copying them again for the worker held the event loop for
 * milliseconds per request). With a declared Content-Length the shared buffer is made that size at once, when the
 * first SHARED_FROM_BYTES have arrived: its pages cost nothing until written, while growing by doubling copies the
 * whole body in one push (and several uploads could grow in the same turn). Without one it grows by doubling.
 * Figures: docs/benchmarks.md, "Figures behind the code".
 */
export class BodyBuffer {
  #chunks: Buffer[] | undefined = [];
  #shared: Buffer | undefined;
  #length = 0;

  /** `expected`: the declared Content-Length (already checked against the body limit), if any. */
  constructor(readonly expected: number | undefined) {}

  get length(): number {
    return this.#length;
  }

  /**
   * `shareable`: the body may still go to the worker (few values so far); dense bodies stay as plain chunks. Returns
   * the bytes this push moved beyond the chunk itself (growing the shared buffer copies what it holds), so that the
   * caller can count that work too.
   */
  push(chunk: Buffer, shareable = true): number {
    const end = this.#length + chunk.length;
    if (this.#chunks) {
      this.#chunks.push(chunk);
      this.#length = end;
      if (end >= SHARED_FROM_BYTES && shareable) {
        this.#shared = Buffer.from(new SharedArrayBuffer(this.#nextSize(end, 0)));
        let offset = 0;
        for (const part of this.#chunks) offset += part.copy(this.#shared, offset);
        this.#chunks = undefined;
        return end;
      }
      return 0;
    }
    let moved = chunk.length;
    let shared = this.#shared!;
    if (end > shared.length) {
      const grown = Buffer.from(new SharedArrayBuffer(this.#nextSize(end, shared.length)));
      shared.copy(grown, 0, 0, this.#length);
      moved += this.#length + grown.length;
      shared = this.#shared = grown;
    }
    chunk.copy(shared, this.#length);
    this.#length = end;
    return moved;
  }

  /** The declared length, else doubling. */
  #nextSize(needed: number, current: number): number {
    return Math.max(needed, this.expected ?? Math.max(current, needed) * 2);
  }

  /** The whole body: in shared memory when it grew large, else the chunks joined. */
  bytes(): Buffer {
    if (this.#shared) return this.#shared.subarray(0, this.#length);
    const chunks = this.#chunks!;
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#length);
  }
}
