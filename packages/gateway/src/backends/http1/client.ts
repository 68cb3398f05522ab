import { UpstreamUnreachable } from "../network-errors.ts";
import type { CallIds } from "../types.ts";
import type { ResponseSink, UpstreamCall } from "../upstream-call.ts";
import { Exchange } from "./exchange.ts";
import { Http1Pool, type PoolSettings } from "./pool.ts";
import { RequestHeadWriter } from "./request-head.ts";

/** POSTs to one plain-HTTP backend over keep-alive HTTP/1.1 connections, the response streamed to a sink. */
export class Http1Client {
  readonly #pool: Http1Pool;
  readonly #heads: RequestHeadWriter;

  /** `origin`: an `http:` URL; `basePath` is put before every request's path; `headers` are sent with every request. */
  constructor(
    origin: URL,
    basePath: string,
    headers: Record<string, string>,
    settings: Omit<PoolSettings, "host" | "port">,
  ) {
    // URL keeps an IPv6 literal's brackets, which the socket does not take.
    const host = origin.hostname.replace(/^\[(.*)\]$/, "$1");
    this.#pool = new Http1Pool({ ...settings, host, port: Number(origin.port || 80) });
    this.#heads = new RequestHeadWriter(origin.host, basePath, headers);
  }

  post(
    path: string,
    body: string | Buffer,
    ids: CallIds,
    sink: ResponseSink,
    headers?: Readonly<Record<string, string>>,
  ): UpstreamCall {
    let head: string | Buffer;
    try {
      const length = typeof body === "string" ? Buffer.byteLength(body) : body.length;
      head = this.#heads.head(path, ids, length, headers);
    } catch (error) {
      const exchange = new Exchange(sink, "", "");
      // As undici did: a request it cannot send fails through the sink, never synchronously.
      queueMicrotask(() => exchange.fail(new UpstreamUnreachable((error as Error).message, false)));
      return exchange;
    }
    const exchange = new Exchange(sink, head, body);
    this.#pool.dispatch(exchange);
    return exchange;
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
