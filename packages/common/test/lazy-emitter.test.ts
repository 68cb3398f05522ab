// The raw ingress's request and response are EventEmitters whose listener table is made by the first listener
// (http1/lazy-emitter.ts): everything a caller of an EventEmitter relies on must behave as on one constructed as usual,
// before and after the first listener, including the helpers of node:events that take an emitter.
import assert from "node:assert/strict";
import { EventEmitter, once } from "node:events";
import { describe, it } from "node:test";
import { LazyEmitter } from "../src/http1/lazy-emitter.ts";
import { RawRequest } from "../src/http1/raw-request.ts";

class Lazy extends LazyEmitter {}

/** The same script of calls on a usual emitter and on a lazy one: what each call returns and what listeners heard. */
function script(emitter: EventEmitter): unknown[] {
  const heard: unknown[] = [];
  heard.push(emitter.emit("x", 1), emitter.listenerCount("x"), emitter.eventNames(), emitter.listeners("x"));
  heard.push(emitter.off("x", () => {}) === emitter, emitter.removeAllListeners("x") === emitter);
  heard.push(emitter.getMaxListeners());
  const listener = (value: unknown) => heard.push(["x", value]);
  emitter.on("x", listener);
  emitter.once("y", (value: unknown) => heard.push(["y once", value]));
  emitter.prependListener("x", (value: unknown) => heard.push(["x first", value]));
  heard.push(emitter.emit("x", 2), emitter.emit("y", 3), emitter.emit("y", 4), emitter.listenerCount("x"));
  heard.push(emitter.eventNames());
  emitter.off("x", listener);
  heard.push(emitter.emit("x", 5), emitter.listenerCount("x"));
  emitter.removeAllListeners();
  heard.push(emitter.emit("x", 6), emitter.eventNames());
  return heard;
}

describe("LazyEmitter", () => {
  it("is an EventEmitter, and behaves as one before and after its first listener", () => {
    const lazy = new Lazy();
    assert.ok(lazy instanceof EventEmitter);
    assert.deepEqual(script(lazy), script(new EventEmitter()));
  });

  it("throws an unheard error as an EventEmitter does, and hands a heard one to its listener", () => {
    const boom = new Error("boom");
    assert.throws(() => new Lazy().emit("error", boom), boom);
    const lazy = new Lazy();
    let heard: unknown;
    lazy.on("error", (error: unknown) => {
      heard = error;
    });
    assert.equal(lazy.emit("error", boom), true);
    assert.equal(heard, boom);
  });

  it("works with node:events' once()", async () => {
    const lazy = new Lazy();
    const arrived = once(lazy, "ready");
    lazy.emit("ready", 7);
    assert.deepEqual(await arrived, [7]);
  });

  it("gives a raw request's body to a data listener, then ends it", async () => {
    const request = new RawRequest("/p", {}, Buffer.from("body"), new EventEmitter() as never);
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    await once(request, "end");
    assert.equal(Buffer.concat(chunks).toString(), "body");
  });
});
