// The answers a connection gets in one go leave in one write. Node's HTTP server writes a connection's pipelined
// answers one at a time: the next response is given the socket only once the previous one's write has called back
// (a tick later), so a turn that answers 16 pipelined posts makes 16 write system calls, each a full trip through
// the TCP stack. Corking does not help: ServerResponse.end() uncorks the socket fully, and a corked write does not
// call back, so the next answer would wait for the uncork.
//
// So, while none of its writes is in the kernel's hands, the socket's write is taken over: what is written is kept
// and called back at once (as a write the kernel took whole would be, a tick later), and everything kept goes out in
// one writev when the ticks and microtasks of the moment are done. The next answers of the chain are written in those
// ticks, so they join it. While that writev is still in the kernel's hands (a client that reads slowly), the next
// write waits for it as it would in the socket itself: one write at a time, so backpressure is unchanged (the
// response streams wait, the server stops reading pipelined requests). Order is kept; a socket that ends sends what
// is kept before its FIN; one that is destroyed drops it, as the kernel drops what it had not sent.
import type { Socket } from "node:net";

type Chunk = { chunk: Buffer | string; encoding: BufferEncoding };
type Done = (error?: Error | null) => void;

const installed = new WeakSet<Socket>();

/** Takes over `socket`'s writes as described above; once per socket (later calls do nothing). */
export function coalesceWrites(socket: Socket): void {
  if (installed.has(socket)) return;
  installed.add(socket);
  new CoalescedWrites(socket);
}

class CoalescedWrites {
  readonly #socket: Socket;
  readonly #writev: NonNullable<Socket["_writev"]>;
  readonly #final: Socket["_final"];
  /** What the next flush writes; empty whenever a flushed write is in the kernel's hands. */
  #kept: Chunk[] = [];
  #scheduled = false;
  /** A flushed write has not called back yet. */
  #inKernel = false;
  /** The stream's next write, waiting for the flushed one (the stream issues one at a time). */
  #waiting: { chunks: Chunk[]; done: Done } | undefined;

  constructor(socket: Socket) {
    this.#socket = socket;
    const writev = socket._writev;
    if (writev === undefined) throw new Error("coalesceWrites: a socket without _writev");
    this.#writev = writev;
    this.#final = socket._final;
    socket._write = (chunk: Buffer | string, encoding: BufferEncoding, done: Done) =>
      this.#write([{ chunk, encoding }], done);
    socket._writev = (chunks: Chunk[], done: Done) => this.#write(chunks, done);
    socket._final = (done: Done) => {
      this.#flush();
      this.#final.call(socket, done);
    };
  }

  #write(chunks: Chunk[], done: Done): void {
    if (this.#inKernel) {
      this.#waiting = { chunks, done };
      return;
    }
    for (const chunk of chunks) this.#kept.push(chunk);
    if (!this.#scheduled) {
      this.#scheduled = true;
      // A microtask queued from a tick runs once the whole tick queue is empty: after the chain of answers.
      process.nextTick(this.#scheduleFlush);
    }
    done();
  }

  readonly #scheduleFlush = (): void => queueMicrotask(this.#flushNow);

  readonly #flushNow = (): void => this.#flush();

  #flush(): void {
    this.#scheduled = false;
    const kept = this.#kept;
    if (kept.length === 0 || this.#inKernel) return;
    this.#kept = [];
    if (this.#socket.destroyed) return;
    this.#inKernel = true;
    this.#writev.call(this.#socket, kept, this.#flushed);
  }

  /** The flushed write is done: the waiting write goes through the socket as it came (it was not called back). */
  readonly #flushed = (error?: Error | null): void => {
    this.#inKernel = false;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (error) {
      // Every answer still to come is lost with the connection, as after any failed write.
      this.#socket.destroy(error);
      waiting?.done(error);
      return;
    }
    if (waiting === undefined) return;
    this.#inKernel = true;
    this.#writev.call(this.#socket, waiting.chunks, (failed?: Error | null) => {
      this.#inKernel = false;
      waiting.done(failed);
    });
  };
}
