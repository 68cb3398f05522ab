import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { beginJoinedWrite, endJoinedWrite } from "../src/http1/joined-writes.ts";
import { RawResponse } from "../src/http1/raw-response.ts";
import { recordingSocket } from "./recording-socket.ts";

type Body = string | Buffer | undefined;
const body: fc.Arbitrary<Body> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
  fc.constant(undefined),
);

/** Answers `bodies` as pipelined answers of one connection (each takes its turn when the one before is handed over). */
async function answer(bodies: Body[], joined: boolean): Promise<{ writes: Buffer[]; finished: number }> {
  const { socket, writes } = recordingSocket();
  let finished = 0;
  const responses: RawResponse[] = [];
  const end = {
    handedOver(response: RawResponse) {
      responses[responses.indexOf(response) + 1]?.takeTurn();
    },
    finished() {
      finished++;
    },
  };
  bodies.forEach((_, index) => {
    responses.push(new RawResponse(socket, true, 5, end, index === 0));
  });
  if (joined) beginJoinedWrite(socket);
  // Answered last to first: the later ones wait for their turn, as pipelined answers that are ready early do.
  for (let i = bodies.length - 1; i >= 0; i--) {
    responses[i]!.setHeader("date", "fixed");
    responses[i]!.end(bodies[i]);
  }
  if (joined) endJoinedWrite(socket);
  await new Promise((resolve) => setImmediate(resolve));
  return { writes, finished };
}

describe("joined writes of raw answers", () => {
  it("send the bytes the answers written one by one send, in order, and finish every answer", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(body, { minLength: 1, maxLength: 8 }), async (bodies) => {
        const single = await answer(bodies, false);
        const joined = await answer(bodies, true);
        assert.deepEqual(Buffer.concat(joined.writes), Buffer.concat(single.writes));
        assert.equal(joined.finished, bodies.length);
        assert.equal(single.finished, bodies.length);
        // Text answers share one write; each Buffer body sends what was kept before it, then itself.
        const buffers = bodies.filter((item) => Buffer.isBuffer(item)).length;
        assert.ok(joined.writes.length <= 2 * buffers + 1);
        if (buffers === 0) assert.equal(joined.writes.length, 1);
      }),
      { numRuns: 300 },
    );
  });

  it("writes straight again once ended", async () => {
    const { socket, writes } = recordingSocket();
    beginJoinedWrite(socket);
    endJoinedWrite(socket);
    new RawResponse(socket, true, 5, { finished() {} }).end("a");
    assert.equal(writes.length, 1);
  });
});
