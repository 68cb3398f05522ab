import assert from "node:assert/strict";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { writeThisTurn } from "../../src/backends/http1/turn-writes.ts";

/** A TCP server that keeps what each of its connections received. */
class Receiver {
  readonly server: Server;
  readonly received: Buffer[][] = [];

  constructor() {
    this.server = createServer((socket) => {
      const chunks: Buffer[] = [];
      this.received.push(chunks);
      socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    });
  }

  listen(): Promise<number> {
    return new Promise((resolve) => {
      this.server.listen(0, "127.0.0.1", () => resolve((this.server.address() as AddressInfo).port));
    });
  }
}

function connected(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, noDelay: true }, () => resolve(socket));
    socket.once("error", reject);
  });
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(condition(), "timed out");
}

describe("backend writes made together at the end of the turn", () => {
  const receiver = new Receiver();
  let port = 0;
  const sockets: Socket[] = [];
  before(async () => {
    port = await receiver.listen();
    for (let i = 0; i < 3; i++) sockets.push(await connected(port));
    await until(() => receiver.received.length === 3);
  });
  after(() => {
    for (const socket of sockets) socket.destroy();
    receiver.server.close();
  });

  it("writes nothing before the turn's end, then every chunk to its socket, in the order queued", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(2), fc.oneof(fc.string({ minLength: 1 }), fc.uint8Array({ minLength: 1 }))), {
          minLength: 1,
          maxLength: 12,
        }),
        async (writes) => {
          const expected: Buffer[][] = [[], [], []];
          const before = receiver.received.map((chunks) => Buffer.concat(chunks).length);
          const written = sockets.map((socket) => socket.bytesWritten);
          for (const [index, chunk] of writes) {
            const data = typeof chunk === "string" ? chunk : Buffer.from(chunk);
            writeThisTurn(sockets[index]!, data);
            expected[index]!.push(Buffer.from(data));
          }
          assert.deepEqual(
            sockets.map((socket) => socket.bytesWritten),
            written,
            "nothing is written in the turn that queued it",
          );
          await nextTurn();
          const wanted = expected.map((chunks, index) => before[index]! + Buffer.concat(chunks).length);
          await until(() => receiver.received.every((chunks, index) => Buffer.concat(chunks).length === wanted[index]));
          receiver.received.forEach((chunks, index) => {
            assert.deepEqual(Buffer.concat(chunks).subarray(before[index]!), Buffer.concat(expected[index]!));
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  it("does not write to a socket destroyed before the turn's end", async () => {
    const socket = await connected(port);
    await until(() => receiver.received.length === 4);
    let failed: unknown;
    socket.on("error", (error) => {
      failed = error;
    });
    writeThisTurn(socket, "lost");
    writeThisTurn(sockets[0]!, "kept");
    socket.destroy();
    await nextTurn();
    await until(() => Buffer.concat(receiver.received[0]!).toString().endsWith("kept"));
    assert.equal(Buffer.concat(receiver.received[3]!).length, 0);
    assert.equal(socket.bytesWritten, 0);
    assert.equal(failed, undefined);
  });
});
