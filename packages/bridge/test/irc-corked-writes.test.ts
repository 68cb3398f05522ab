// Corked IRC writes (accounts/irc/corked-writes.ts) on a real loopback socket, through the line guard as the
// connection installs it: lines keep their order and leave in one write, a line holding CR, LF or NUL inside a
// corked batch is still refused alone, a batch whose socket dies before the write resolves nothing, and the lines
// of one turn's single sends wait for the turn's end and leave together.
import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { describe, it } from "node:test";
import type { Client } from "irc-framework";
import { TurnCork, writeCorked } from "../src/accounts/irc/corked-writes.ts";
import { refuseUnsafeLines } from "../src/accounts/irc/line-guard.ts";
import type { Teardown } from "./helpers.ts";

interface Link {
  client: Client;
  socket: Socket;
  /** Lines the server side has read so far. */
  received: string[];
  /** How many times the socket handed data to the kernel (one per write or writev). */
  writes(): number;
  waitForLines(count: number): Promise<void>;
}

/** A socket to a local server, and a client whose connection writes lines as irc-framework's does (one write each). */
async function link(t: Teardown): Promise<Link> {
  const server: Server = createServer();
  const accepted = once(server, "connection") as Promise<[Socket]>;
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  const socket = connect({ host: "127.0.0.1", port: address.port });
  await once(socket, "connect");
  const [peer] = await accepted;
  t.after(() => {
    socket.destroy();
    peer.destroy();
    server.close();
  });
  const received: string[] = [];
  let pending = "";
  let waiter: { count: number; resolve: () => void } | undefined;
  peer.setEncoding("utf8");
  peer.on("data", (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\r\n");
    pending = lines.pop() ?? "";
    received.push(...lines);
    if (waiter !== undefined && received.length >= waiter.count) waiter.resolve();
  });
  // Counts the socket's own writes to the kernel: _write for one chunk, _writev for several gathered by cork.
  let writes = 0;
  const raw = socket as unknown as Record<"_write" | "_writev", (...args: unknown[]) => unknown>;
  for (const method of ["_write", "_writev"] as const) {
    const original = raw[method].bind(socket);
    raw[method] = (...args: unknown[]) => {
      writes++;
      return original(...args);
    };
  }
  const connection = {
    connected: true,
    transport: { socket },
    write(line: string, callback?: (error?: Error | null) => void): boolean | undefined {
      socket.write(`${line}\r\n`, callback);
      return undefined;
    },
    end: () => socket.end(),
  };
  const client = { connection } as unknown as Client;
  return {
    client,
    socket,
    received,
    writes: () => writes,
    waitForLines: (count) =>
      received.length >= count
        ? Promise.resolve()
        : new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`only ${received.length} of ${count} lines`)), 5_000);
            waiter = {
              count,
              resolve: () => {
                clearTimeout(timer);
                resolve();
              },
            };
          }),
  };
}

describe("corked IRC writes", () => {
  it("keep the lines' order and hand them to the kernel in one write", async (t) => {
    const { client, received, writes, waitForLines } = await link(t);
    refuseUnsafeLines(client, () => assert.fail("no line is unsafe"));
    const lines = Array.from({ length: 50 }, (_, i) => `PRIVMSG #c :<bob> line ${i}`);
    await writeCorked(client, lines);
    assert.equal(writes(), 1);
    await waitForLines(50);
    assert.deepEqual(received, lines);
  });

  it("still refuse a line holding CR, LF or NUL inside a corked batch, and send the others in order", async (t) => {
    const { client, received, waitForLines } = await link(t);
    const refused: string[] = [];
    refuseUnsafeLines(client, (command) => refused.push(command));
    await writeCorked(client, [
      "PRIVMSG #c :one",
      "PRIVMSG #c :two\r\nQUIT :tricked",
      "PRIVMSG #c :three",
      "NOTICE #c :four\nJOIN #elsewhere",
      "PRIVMSG #c :five\0six",
      "PRIVMSG #c :seven",
    ]);
    await waitForLines(3);
    assert.deepEqual(received, ["PRIVMSG #c :one", "PRIVMSG #c :three", "PRIVMSG #c :seven"]);
    assert.deepEqual(refused, ["PRIVMSG", "NOTICE", "PRIVMSG"]);
  });

  it("reject, counting none as sent, when the socket dies while the batch is corked", async (t) => {
    const { client, socket, received } = await link(t);
    const write = client.connection.write.bind(client.connection);
    let count = 0;
    // The link drops in the middle of the batch: the first lines are still in Node's buffer, never written.
    client.connection.write = (line, callback) => {
      if (++count === 3) socket.destroy();
      return write(line, callback);
    };
    await assert.rejects(writeCorked(client, ["PRIVMSG #c :a", "PRIVMSG #c :b", "PRIVMSG #c :c", "PRIVMSG #c :d"]));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(received, []);
  });

  it("hold one turn's single writes until the turn ends, then write them together", async (t) => {
    const { client, socket, received, writes, waitForLines } = await link(t);
    const cork = new TurnCork();
    const done: number[] = [];
    const written = [1, 2, 3].map(
      (n) =>
        new Promise<void>((resolve, reject) => {
          cork.hold(client);
          client.connection.write(`PRIVMSG #c :${n}`, (error) => {
            if (error) reject(error);
            done.push(n);
            resolve();
          });
        }),
    );
    // Still in Node's buffer: nobody may count these lines as sent yet.
    await Promise.resolve();
    assert.deepEqual(done, []);
    assert.ok(socket.writableLength > 0);
    await Promise.all(written);
    assert.equal(writes(), 1);
    await waitForLines(3);
    assert.deepEqual(received, ["PRIVMSG #c :1", "PRIVMSG #c :2", "PRIVMSG #c :3"]);
  });
});
