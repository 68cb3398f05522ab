// Reads a request body up to BodyLimit. An over-limit body is answered at once with 413, and what the client still
// sends is read and discarded up to a bound, so a client that is still writing can finish and read the 413 instead
// of failing with EPIPE or ECONNRESET (closing a socket with unread data makes the kernel reset the connection).
import type { IncomingMessage } from "node:http";
import type { FastifyRequest } from "fastify";
import { MAX_DISCARDED_BODY_BYTES } from "./limits.ts";

export type BodyFormat = "json" | "form";

/** What the content-type parsers hand to the POST handler: the raw bytes and how to read them. */
export interface PostedBody {
  format: BodyFormat;
  bytes: Buffer;
}

export function isPostedBody(body: unknown): body is PostedBody {
  return typeof body === "object" && body !== null && "format" in body && "bytes" in body;
}

/** The body was larger than BodyLimit (answered 413 by the error handler). */
export class BodyTooLargeError extends Error {
  readonly statusCode = 413;
  constructor(readonly limit: number) {
    super(`body larger than ${limit} bytes`);
  }
}

/**
 * Reads and drops what is left of a request body, up to MAX_DISCARDED_BODY_BYTES; past that the connection is closed.
 * Safe to call more than once and on a request already read.
 */
export function discardRestOfBody(request: IncomingMessage): void {
  if (request.complete || request.readableEnded || request.listenerCount("data") > 0) return;
  let discarded = 0;
  request.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > MAX_DISCARDED_BODY_BYTES) request.socket.destroy();
  });
  request.on("error", () => {});
  request.resume();
}

type Done = (error: Error | null, body?: PostedBody) => void;

/** A fastify content-type parser (raw stream form) reading at most `limit` bytes. */
export function bodyParser(format: BodyFormat, limit: number) {
  return (request: FastifyRequest, payload: IncomingMessage, done: Done): void => {
    let settled = false;
    const settle = (error: Error | null, body?: PostedBody) => {
      if (settled) return;
      settled = true;
      payload.removeListener("data", onData);
      payload.removeListener("end", onEnd);
      done(error, body);
    };
    const tooLarge = () => {
      settle(new BodyTooLargeError(limit));
      discardRestOfBody(payload);
    };
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return tooLarge();
      chunks.push(chunk);
    };
    // A copy, never a view over the socket's read buffer.
    const onEnd = () => settle(null, { format, bytes: Buffer.concat(chunks, received) });
    // Known too large before a byte is read: answer now, discard what comes.
    if (Number(request.headers["content-length"]) > limit) {
      tooLarge();
      return;
    }
    payload.on("data", onData);
    payload.once("end", onEnd);
    // A client that goes away mid-body is a client error, not a failure of the bridge.
    payload.once("error", () => settle(Object.assign(new Error("the request body was cut off"), { statusCode: 400 })));
  };
}
