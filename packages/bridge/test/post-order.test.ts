// The line of a connection's posts (accounts/api/post-order.ts): whatever order posts become ready in, they run in
// the order they joined; a run that routes later holds the line until it leaves; a place that leaves while it waits
// (its connection closed) runs at once and lets the others go on.
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, it } from "node:test";
import fc from "fast-check";
import { leave, type Place, PostOrder, whenFirst } from "../src/accounts/api/post-order.ts";

describe("a connection's post order", () => {
  it("runs posts in the order they joined, whatever order they become ready in", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 12 })
          .chain((count) =>
            fc.tuple(
              fc.shuffledSubarray([...Array(count).keys()], { minLength: count }),
              fc.array(fc.boolean(), { minLength: count, maxLength: count }),
            ),
          ),
        ([readyOrder, holds]) => {
          const order = new PostOrder();
          const connection = {};
          const places = readyOrder.map(() => order.join(connection));
          const ran: number[] = [];
          const held: Place[] = [];
          for (const index of readyOrder) {
            const place = places[index] as Place;
            whenFirst(place, () => {
              ran.push(index);
              // A post routed later (fastify's) holds the line; the others leave as they run.
              if (holds[index]) held.push(place);
              else leave(place);
            });
            // Posts that hold are let go one at a time, as their routing completes.
            while (held.length > 0) leave(held.shift() as Place);
          }
          assert.deepEqual(
            ran,
            [...readyOrder].sort((a, b) => a - b),
          );
        },
      ),
    );
  });

  it("keeps the lines of two connections apart", () => {
    const order = new PostOrder();
    const [first, second] = [order.join({}), order.join({})];
    const ran: string[] = [];
    whenFirst(second, () => ran.push("second"));
    assert.deepEqual(ran, ["second"], "not held by the other connection's post");
    whenFirst(first, () => ran.push("first"));
    assert.deepEqual(ran, ["second", "first"]);
  });

  it("lets a post that waits run at once when its connection closes, and those behind it go on", async () => {
    const order = new PostOrder();
    const socket = {};
    const ahead = order.join(socket);
    const request = { socket } as unknown as IncomingMessage;
    const response = new EventEmitter();
    order.joinFastify(request, response as unknown as ServerResponse);
    const behind = order.join(socket);
    const ran: string[] = [];
    whenFirst(behind, () => {
      ran.push("behind");
      leave(behind);
    });
    const routed = order.routeInTurn(request, () => ran.push("fastify"));
    assert.ok(routed instanceof Promise, "waits for the post ahead");
    assert.deepEqual(ran, []);
    response.emit("close");
    assert.equal(await routed, 1);
    assert.deepEqual(ran, ["fastify"], "the post ahead still holds the one behind");
    leave(ahead);
    assert.deepEqual(ran, ["fastify", "behind"]);
  });

  it("routes a fastify post at once when nothing is ahead of it, and a refused one lets the next go", () => {
    const order = new PostOrder();
    const socket = {};
    const [refused, routed] = [0, 1].map(() => ({ socket }) as unknown as IncomingMessage) as [
      IncomingMessage,
      IncomingMessage,
    ];
    for (const request of [refused, routed]) {
      order.joinFastify(request, new EventEmitter() as unknown as ServerResponse);
    }
    const waiting = order.routeInTurn(routed, () => "routed");
    assert.ok(waiting instanceof Promise);
    order.leaveFastify(refused);
    return waiting.then((value) => assert.equal(value, "routed"));
  });

  it("passes a routing error to the post that raised it and frees the line", async () => {
    const order = new PostOrder();
    const socket = {};
    const request = { socket } as unknown as IncomingMessage;
    order.joinFastify(request, new EventEmitter() as unknown as ServerResponse);
    const behind = order.join(socket);
    assert.throws(() => order.routeInTurn(request, () => assert.fail("refused")), /refused/);
    let ran = false;
    whenFirst(behind, () => {
      ran = true;
    });
    assert.ok(ran);
  });
});
