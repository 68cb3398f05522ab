import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { SseNormaliser, streamErrorEvent } from "./sse-normaliser.ts";

export type RelayOutcome =
  | { kind: "ok" }
  | { kind: "aborted" }
  | { kind: "failed-before-start"; message: string }
  | { kind: "failed-after-start"; message: string };

const SSE_HEADERS: OutgoingHttpHeaders = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/**
 * Relays an upstream SSE body event by event, as it arrives. Nothing is sent to the client before the first complete
 * event, so a backend that fails before that can still be failed over. A failure after that ends the stream with an
 * error event and `data: [DONE]`; a clean end always carries `data: [DONE]`.
 */
export function relayStream(
  body: Readable,
  res: ServerResponse,
  headers: OutgoingHttpHeaders,
  signal: AbortSignal,
): Promise<RelayOutcome> {
  return new Promise((resolve) => {
    const sse = new SseNormaliser();
    let started = false;
    let settled = false;
    const settle = (outcome: RelayOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const start = () => {
      if (started) return;
      started = true;
      res.writeHead(200, { ...headers, ...SSE_HEADERS });
    };
    const resume = () => body.resume();
    body.on("data", (chunk: Buffer) => {
      const events = sse.push(chunk);
      if (events === "" || res.destroyed) return;
      start();
      if (!res.write(events)) {
        body.pause();
        res.once("drain", resume);
      }
    });
    body.on("end", () => {
      if (res.destroyed) return settle({ kind: "aborted" });
      start();
      res.end(sse.finish());
      settle({ kind: "ok" });
    });
    body.on("error", (error: Error) => {
      if (signal.aborted || res.destroyed) return settle({ kind: "aborted" });
      const message = error.message || "upstream stream failed";
      if (!started) return settle({ kind: "failed-before-start", message });
      res.end(streamErrorEvent(`The backend stream broke off: ${message}`));
      settle({ kind: "failed-after-start", message });
    });
  });
}
