// Corked IRC writes (accounts/irc/corked-writes.ts) on a real loopback socket, through the line guard as the
// connection installs it: lines keep their order and leave in one write (joined on irc-framework's net transport,
// corked through the connection otherwise), with the bytes irc-framework would have written line by line, a line
// holding CR, LF or NUL inside a batch is still refused alone, a batch whose socket is gone resolves nothing, and
// the lines of one turn's single sends wait for the turn's end and leave together.
import assert from "node:assert/strict";
import { EventEmitter, once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { Client } from "irc-framework";
import { encodeIrcAsLatin1 } from "../src/accounts/irc/charset.ts";
import { TurnCork, writeCorked } from "../src/accounts/irc/corked-writes.ts";
import { refuseUnsafeLines } from "../src/accounts/irc/line-guard.ts";
import type { Teardown } from "./helpers.ts";

interface Link {
  client: Client;
  socket: Socket;
  /** Lines the server side has read so far (decoded as latin1: one character per byte). */
  received: string[];
  /** How many times the socket handed data to the kernel (one per write or writev). */
  writes(): number;
  /** How many lines went through the connection's own write (irc-framework's path, one line at a time). */
  lineWrites(): number;
  waitForLines(count: number): Promise<void>;
}

/**
 * A socket to a local server, and a client shaped as irc-framework's: an event emitter whose connection writes each
 * line with its own socket write (encoded as its transport's encoding), over a net transport that holds the socket
 * and its encoding ("other": one that tells neither its encoding nor its state, written line by line).
 */
async function link(t: Teardown, transport: "latin1" | "utf8" | "other" = "latin1"): Promise<Link> {
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
  peer.setEncoding("latin1");
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
  let lineWrites = 0;
  const encoding = transport === "other" ? "utf8" : transport;
  const connection = {
    connected: true,
    requested_disconnect: false,
    transport:
      transport === "other"
        ? { socket }
        : { socket, encoding, isConnected: () => true, writeLine: () => assert.fail() },
    write(line: string, callback?: (error?: Error | null) => void): boolean | undefined {
      lineWrites++;
      socket.write(Buffer.from(`${line}\r\n`, encoding), callback);
      return undefined;
    },
    end: () => socket.end(),
  };
  const client = Object.assign(new EventEmitter(), { connection }) as unknown as Client;
  return {
    client,
    socket,
    received,
    writes: () => writes,
    lineWrites: () => lineWrites,
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

const noRefusal = () => assert.fail("no line is unsafe");

describe("corked IRC writes", () => {
  for (const transport of ["latin1", "utf8", "other"] as const) {
    it(`keep the lines' order and hand them to the kernel in one write (${transport} transport)`, async (t) => {
      const { client, received, writes, waitForLines } = await link(t, transport);
      refuseUnsafeLines(client, noRefusal);
      const lines = Array.from({ length: 50 }, (_, i) => `PRIVMSG #c :<bob> line ${i}`);
      await writeCorked(client, lines, noRefusal);
      assert.equal(writes(), 1);
      await waitForLines(50);
      assert.deepEqual(received, lines);
    });

    it(`still refuse a line holding CR, LF or NUL in a batch, and send the others in order (${transport})`, async (t) => {
      const { client, received, waitForLines } = await link(t, transport);
      const refused: string[] = [];
      refuseUnsafeLines(client, (command) => refused.push(command));
      await writeCorked(
        client,
        [
          "PRIVMSG #c :one",
          "PRIVMSG #c :two\r\nQUIT :tricked",
          "PRIVMSG #c :three",
          "NOTICE #c :four\nJOIN #elsewhere",
          "PRIVMSG #c :five\0six",
          "PRIVMSG #c :seven",
        ],
        (command) => refused.push(command),
      );
      await waitForLines(3);
      assert.deepEqual(received, ["PRIVMSG #c :one", "PRIVMSG #c :three", "PRIVMSG #c :seven"]);
      assert.deepEqual(refused, ["PRIVMSG", "NOTICE", "PRIVMSG"]);
    });
  }

  it("write a batch's bytes as irc-framework would write its lines one by one, whatever the text", async (t) => {
    // Strings as the wire hands them to irc-framework (wire.ts), and characters no latin1 byte holds.
    const text = fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }).map(encodeIrcAsLatin1));
    const cases = fc.sample(fc.array(text, { minLength: 1, maxLength: 6 }), 40);
    for (const transport of ["latin1", "utf8"] as const) {
      const batched = await link(t, transport);
      const oneByOne = await link(t, transport);
      let count = 0;
      for (const texts of cases) {
        const lines = texts.map((s) => `PRIVMSG #c :${s.replace(/[\r\n\0]/g, "")}`);
        await writeCorked(batched.client, lines, noRefusal);
        for (const line of lines) oneByOne.client.connection.write(line);
        count += lines.length;
        await Promise.all([batched.waitForLines(count), oneByOne.waitForLines(count)]);
      }
      assert.deepEqual(batched.received, oneByOne.received);
    }
  });

  it("tell irc-framework's raw listeners of each line written, as its own write does", async (t) => {
    const { client, waitForLines } = await link(t);
    const seen: unknown[] = [];
    client.on("raw", (event) => seen.push(event));
    await writeCorked(client, ["PRIVMSG #c :a", "PRIVMSG #c :b\nc"], () => {});
    await waitForLines(1);
    assert.deepEqual(seen, [{ line: "PRIVMSG #c :a", from_server: false }]);
  });

  it("reject, counting none as sent, when the socket is gone", async (t) => {
    const { client, socket, received } = await link(t);
    socket.destroy();
    await assert.rejects(writeCorked(client, ["PRIVMSG #c :a", "PRIVMSG #c :b"], noRefusal));
    const { connection } = client as unknown as { connection: { connected: boolean } };
    connection.connected = false;
    await assert.rejects(writeCorked(client, ["PRIVMSG #c :a"], noRefusal), /not connected/);
    assert.deepEqual(received, []);
  });

  it("reject, counting none as sent, when the socket dies while a line-by-line batch is corked", async (t) => {
    const { client, socket, received } = await link(t, "other");
    const write = client.connection.write.bind(client.connection);
    let count = 0;
    // The link drops in the middle of the batch: the first lines are still in Node's buffer, never written.
    client.connection.write = (line, callback) => {
      if (++count === 3) socket.destroy();
      return write(line, callback);
    };
    await assert.rejects(
      writeCorked(client, ["PRIVMSG #c :a", "PRIVMSG #c :b", "PRIVMSG #c :c", "PRIVMSG #c :d"], noRefusal),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(received, []);
  });

  it("write line by line, corked, when a line holds a character latin1 cannot", async (t) => {
    const { client, received, writes, lineWrites, waitForLines } = await link(t);
    await writeCorked(client, ["PRIVMSG #c :a", "PRIVMSG #c :\u20ac"], noRefusal);
    await waitForLines(2);
    assert.equal(lineWrites(), 2);
    assert.equal(writes(), 1);
    assert.deepEqual(received, ["PRIVMSG #c :a", "PRIVMSG #c :\u00ac"]);
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
