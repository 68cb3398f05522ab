// The write slab hands out each byte once: slices never overlap, so a write still queued in the kernel keeps its bytes
// however many answers are joined after it. Checked on the slices, and on answers written through RawResponse to a
// socket that keeps the very buffers it is given (as a socket with a full queue does) until all are written.
import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { describe, it } from "node:test";
import fc from "fast-check";
import { RawResponse } from "../src/http1/raw-response.ts";
import { SLAB_JOIN_MAX_BYTES, slabSlice } from "../src/http1/write-slab.ts";

/** A socket that keeps references to what it is given, as a socket whose queue is full does, and never calls back. */
function keepingSocket(): { socket: Socket; kept: () => string } {
  const parts: (string | Buffer)[] = [];
  const socket = {
    destroyed: false,
    writableEnded: false,
    write(data: string | Buffer) {
      parts.push(data);
      return false;
    },
    cork() {},
    uncork() {},
    destroy() {},
  };
  const kept = () => parts.map((part) => (typeof part === "string" ? part : part.toString("latin1"))).join("");
  return { socket: socket as unknown as Socket, kept };
}

const end = { finished() {} };

describe("the write slab", () => {
  it("never hands out the same bytes twice", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: SLAB_JOIN_MAX_BYTES }), { minLength: 1, maxLength: 60 }),
        (sizes) => {
          const slices = sizes.map((size) => slabSlice(size));
          for (const [i, slice] of slices.entries()) assert.equal(slice.length, sizes[i]);
          for (let i = 0; i < slices.length; i++) {
            for (let j = i + 1; j < slices.length; j++) {
              const a = slices[i] as Buffer;
              const b = slices[j] as Buffer;
              if (a.buffer !== b.buffer) continue;
              const apart = a.byteOffset + a.length <= b.byteOffset || b.byteOffset + b.length <= a.byteOffset;
              assert.ok(apart, `slices ${i} and ${j} overlap`);
            }
          }
        },
      ),
    );
  });

  it("keeps every answer's bytes while later answers are joined", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: SLAB_JOIN_MAX_BYTES + 2_000 }), { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        (sizes, chunked) => {
          const { socket, kept } = keepingSocket();
          let expected = "";
          sizes.forEach((size, index) => {
            const body = Buffer.alloc(size, 0x61 + (index % 26));
            const response = new RawResponse(socket, true, 5, end, true);
            if (chunked) {
              response.writeHead(200, { "content-type": "text/event-stream" });
              response.write(body);
              response.end();
            } else {
              response.writeHead(200, { "content-length": size });
              response.end(body);
            }
            expected += body.toString("latin1");
          });
          const bodies = kept().replace(/HTTP\/1\.1 200 OK\r\n[\s\S]*?\r\n\r\n/g, "");
          const unframed = chunked ? bodies.replace(/(^|\r\n)[0-9a-f]+\r\n/g, "").replace(/\r\n$/, "") : bodies;
          assert.equal(unframed, expected);
        },
      ),
      { numRuns: 60 },
    );
  });
});
