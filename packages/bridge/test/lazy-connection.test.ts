// A protocol loaded on its first connect (accounts/lazy-connection.ts): nothing is loaded before connect, everything
// is forwarded after, a stop of inbound work that came first is handed on, and a library that fails to load fails the
// account for good instead of being retried.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lazyConnection } from "../src/accounts/lazy-connection.ts";
import type { Delivery } from "../src/core/account.ts";
import { AccountFailure, type Connection, type ConnectionContext } from "../src/core/connection.ts";
import { emptyMessage } from "../src/message.ts";

class RecordingConnection implements Connection {
  readonly calls: string[] = [];
  async connect(): Promise<void> {
    this.calls.push("connect");
  }
  async join(request: { channel: string }): Promise<void> {
    this.calls.push(`join ${request.channel}`);
  }
  send(delivery: Delivery): string {
    this.calls.push(`send ${delivery.message.text}`);
    return "id-1";
  }
  stopAccepting(retryAfterSeconds: number): void {
    this.calls.push(`stopAccepting ${retryAfterSeconds}`);
  }
  async disconnect(): Promise<void> {
    this.calls.push("disconnect");
  }
}

const context = {} as ConnectionContext;
const delivery = (text: string) =>
  ({ channel: "#a", gateway: "g", message: emptyMessage({ text, channel: "#a" }) }) as unknown as Delivery;

describe("lazyConnection", () => {
  it("loads the real connection on the first connect only, then forwards to it", async () => {
    const real = new RecordingConnection();
    let loads = 0;
    const create = lazyConnection<string>(async () => {
      loads++;
      return (account, given) => {
        assert.equal(account, "irc.x");
        assert.equal(given, context);
        return real;
      };
    });
    const connection = create("irc.x", context);
    assert.equal(loads, 0, "creating it loads nothing");
    await connection.disconnect();
    assert.deepEqual(real.calls, [], "a disconnect before any connect has nothing to close");
    await connection.connect();
    await connection.join({ channel: "#a", options: {} });
    assert.equal(connection.send(delivery("hi")), "id-1");
    await connection.disconnect();
    await connection.connect();
    assert.equal(loads, 1, "a reconnect does not load again");
    assert.deepEqual(real.calls, ["connect", "join #a", "send hi", "disconnect", "connect"]);
  });

  it("hands on a stopAccepting that came before the first connect", async () => {
    const real = new RecordingConnection();
    const connection = lazyConnection<string>(async () => () => real)("x", context);
    connection.stopAccepting!(7);
    await connection.connect();
    assert.deepEqual(real.calls, ["stopAccepting 7", "connect"]);
  });

  it("declares sendBatch before loading as the descriptor says, and forwards it", async () => {
    const real = Object.assign(new RecordingConnection(), {
      sendBatch: async (deliveries: readonly Delivery[]) => deliveries.map((d) => `id-${d.message.text}`),
    });
    const create = lazyConnection<{ twitch: boolean }>(async () => () => real, {
      batches: (account) => !account.twitch,
    });
    assert.equal(create({ twitch: true }, context).sendBatch, undefined);
    const connection = create({ twitch: false }, context);
    assert.ok(connection.sendBatch, "declared before the first connect");
    await connection.connect();
    assert.deepEqual(await connection.sendBatch([delivery("a"), delivery("b")]), ["id-a", "id-b"]);
  });

  it("fails the account when the connection does not batch as declared", async () => {
    const connection = lazyConnection<string>(async () => () => new RecordingConnection(), { batches: () => true })(
      "x",
      context,
    );
    await assert.rejects(connection.connect(), AccountFailure);
  });

  it("fails the account for good when the library cannot be loaded", async () => {
    const connection = lazyConnection<string>(() => Promise.reject(new Error("Cannot find package 'x'")))("x", context);
    await assert.rejects(connection.connect(), (error: unknown) => {
      assert.ok(error instanceof AccountFailure);
      assert.match(error.message, /cannot load the protocol's client library: Cannot find package 'x'/);
      return true;
    });
  });
});
