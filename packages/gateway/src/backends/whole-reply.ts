// A whole-body request to an `http:` backend over node:http, for the calls that are not hot and read their answer in
// full (BackendHttpClient's JSON calls: the health probes, model listings, Ollama's show). undici's HTTP parser is
// WebAssembly: the first responses of a process make V8 compile it with its optimizing tier (25-30 ms of CPU on a
// background thread), which the gateway's first probe round paid before it could listen; Node's parser is native. A
// fresh connection per call: a probe every half minute needs no pooled one, and never meets one the backend closed
// meanwhile.
import { request } from "node:http";
import { readCapped } from "./capped-read.ts";
import { toUnreachable } from "./network-errors.ts";

export interface WholeReply {
  statusCode: number;
  body: Buffer;
}

/**
 * Network failures (and the signal's timeout) reject with UpstreamUnreachable, as the undici calls do; a body over
 * `limitBytes` with AnswerTooLarge, its connection closed there.
 */
export function wholeReply(
  url: string,
  method: "GET" | "POST",
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
  limitBytes: number,
): Promise<WholeReply> {
  return new Promise((resolve, reject) => {
    // Aborted by the signal: its reason (a TimeoutError), which toUnreachable reads as a timeout, as undici gave it.
    const fail = (error: unknown) => reject(toUnreachable(signal.aborted ? signal.reason : error));
    const outgoing = request(url, { method, headers, signal, agent: false }, (response) => {
      readCapped(response, limitBytes).then((body) => resolve({ statusCode: response.statusCode ?? 0, body }), fail);
    });
    outgoing.on("error", fail);
    outgoing.end(body);
  });
}
