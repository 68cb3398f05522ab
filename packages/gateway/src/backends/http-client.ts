import { abortEither } from "@switchboard/common";
import type { Pool } from "undici";
import type { BackendSettings } from "../config/types.ts";
import { readCapped } from "./capped-read.ts";
import { Http1Client } from "./http1/client.ts";
import { LazyPool } from "./lazy-pool.ts";
import { toUnreachable } from "./network-errors.ts";
import type { CallIds, UpstreamReply, UpstreamResponse } from "./types.ts";
import { PendingCall, type ResponseSink, SinkHandler, type UpstreamCall } from "./upstream-call.ts";
import { wholeReply } from "./whole-reply.ts";

export interface ClientLimits {
  /** Time allowed until the response headers arrive, and between body chunks. */
  requestTimeoutMs: number;
  /** The most bytes one answer may bring (`[server] answer_limit_bytes`). */
  answerLimitBytes: number;
}

type Method = "GET" | "POST";

interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  ids?: CallIds;
  /** The request's own headers (a client's, forwarded); the backend's own (its key) win over them. */
  headers?: Readonly<Record<string, string>>;
}

/**
 * Keep-alive connections to one backend, with the backend's headers computed once.
 *
 * Chat completions (`dispatch`, the hot path) to an `http:` backend go through our own lean HTTP/1.1 client
 * (http1/): it costs about a fifth less CPU per request than undici's general-purpose dispatcher. undici stays for
 * `https:` backends (TLS, and these are cloud APIs whose latency dwarfs the difference) and for the calls that are not
 * hot (embeddings, lifecycle), which want its streams, signals and whole-body reads. The JSON calls (probes, model
 * listings) to an `http:` backend go through node:http (whole-reply.ts), which spares start-up undici's WebAssembly.
 * The undici pool is made on first use (lazy-pool.ts), so that a gateway whose backends are all `http:` does not load
 * undici before its first answer, nor at all until an embeddings or lifecycle call.
 */
export class BackendHttpClient {
  readonly #pool: LazyPool;
  readonly #http1: Http1Client | undefined;
  readonly #basePath: string;
  readonly #jsonHeaders: Record<string, string>;
  readonly #plainHeaders: Record<string, string>;
  /** The JSON headers as undici's flat [name, value, ...] list (cheaper per request than an object). */
  readonly #jsonHeaderList: string[];
  readonly #timeoutMs: number;
  readonly #answerLimitBytes: number;
  /** The base URL of an `http:` backend (its JSON calls go through node:http), undefined otherwise. */
  readonly #plainHttpBase: string | undefined;

  /**
   * `authHeaders`: how this backend is given its key (default `Authorization: Bearer <api key>` when one is
   * configured). Computed once; the client's own credentials are never among them.
   */
  constructor(settings: BackendSettings, limits: ClientLimits, authHeaders?: Record<string, string>) {
    const url = new URL(settings.url);
    this.#basePath = url.pathname.replace(/\/+$/, "");
    this.#plainHttpBase = url.protocol === "http:" ? url.origin + this.#basePath : undefined;
    this.#timeoutMs = limits.requestTimeoutMs;
    this.#answerLimitBytes = limits.answerLimitBytes;
    this.#pool = new LazyPool(url.origin, {
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 300_000,
      headersTimeout: limits.requestTimeoutMs,
      bodyTimeout: limits.requestTimeoutMs,
      connect: { timeout: Math.min(10_000, limits.requestTimeoutMs) },
    });
    const auth: Record<string, string> =
      authHeaders ?? (settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {});
    this.#plainHeaders = { accept: "application/json", ...auth };
    this.#jsonHeaders = { "content-type": "application/json", ...auth };
    this.#jsonHeaderList = Object.entries(this.#jsonHeaders).flat();
    this.#http1 =
      url.protocol === "http:"
        ? new Http1Client(url, this.#basePath, this.#jsonHeaders, {
            // The same limits the undici pool has, so that a backend sees no difference between the two.
            connectTimeoutMs: Math.min(10_000, limits.requestTimeoutMs),
            requestTimeoutMs: limits.requestTimeoutMs,
            keepAliveMs: 30_000,
            keepAliveMaxMs: 300_000,
            keepAliveMarginMs: 2_000,
            answerLimitBytes: limits.answerLimitBytes,
            // The backend's own cap on requests in flight (routing sends no more); unbounded, like undici, without one.
            maxConnections: settings.maxConcurrent,
          })
        : undefined;
  }

  /**
   * Starts a request; resolves when the response headers are in. Network failures become UpstreamUnreachable.
   */
  async request(
    method: Method,
    path: string,
    body: string | Buffer | undefined,
    options: CallOptions = {},
  ): Promise<UpstreamResponse> {
    const base = body === undefined ? this.#plainHeaders : this.#jsonHeaders;
    const timeout = options.timeoutMs ?? this.#timeoutMs;
    const headers = options.ids || options.headers ? { ...options.headers, ...base, ...idHeaders(options.ids) } : base;
    try {
      const response = await this.#pool.request({
        method,
        path: this.#basePath + path,
        headers,
        body,
        signal: options.signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      const contentType = response.headers["content-type"];
      return {
        statusCode: response.statusCode,
        contentType: typeof contentType === "string" ? contentType : "application/json",
        body: response.body,
      };
    } catch (error) {
      throw toUnreachable(error);
    }
  }

  /** POSTs a request whose response goes straight to `sink`, as it arrives; `headers` are this request's own. */
  dispatch(
    path: string,
    body: string | Buffer,
    ids: CallIds,
    sink: ResponseSink,
    headers?: Readonly<Record<string, string>>,
  ): UpstreamCall {
    if (this.#http1 !== undefined) return this.#http1.post(path, body, ids, sink, headers);
    const pool = this.#pool.now();
    if (pool !== undefined) return this.#dispatchTo(pool, path, body, ids, sink, headers);
    // The first call to this backend, before undici is loaded.
    const pending = new PendingCall(sink);
    this.#pool.ready().then(
      (loaded) => {
        if (!pending.aborted) pending.begin(this.#dispatchTo(loaded, path, body, ids, sink, headers));
      },
      (error: unknown) => {
        if (!pending.aborted) sink.error(toUnreachable(error));
      },
    );
    return pending;
  }

  #dispatchTo(
    pool: Pool,
    path: string,
    body: string | Buffer,
    ids: CallIds,
    sink: ResponseSink,
    extra?: Readonly<Record<string, string>>,
  ): UpstreamCall {
    const handler = new SinkHandler(sink, this.#answerLimitBytes);
    try {
      const headers = [...this.#jsonHeaderList, "x-request-id", ids.requestId];
      if (ids.traceparent !== undefined) headers.push("traceparent", ids.traceparent);
      if (extra !== undefined) for (const [name, value] of Object.entries(extra)) headers.push(name, value);
      pool.dispatch(
        {
          method: "POST",
          path: this.#basePath + path,
          headers,
          body,
          headersTimeout: this.#timeoutMs,
          bodyTimeout: this.#timeoutMs,
        },
        handler,
      );
    } catch (error) {
      queueMicrotask(() => handler.onResponseError(undefined as never, error as Error));
    }
    return handler;
  }

  /** A request whose body is read in full (at most `[server] answer_limit_bytes` of it). */
  async fetch(
    method: Method,
    path: string,
    body: string | Buffer | undefined,
    options: CallOptions = {},
  ): Promise<UpstreamReply> {
    const response = await this.request(method, path, body, options);
    try {
      const buffer = await readCapped(response.body, this.#answerLimitBytes);
      return { statusCode: response.statusCode, contentType: response.contentType, body: buffer };
    } catch (error) {
      throw toUnreachable(error);
    }
  }

  /** GET returning parsed JSON; any non-2xx or unparsable body throws, as does `stop` aborting. Used by probes. */
  async getJson(path: string, timeoutMs: number, stop?: AbortSignal): Promise<unknown> {
    return this.#json("GET", path, undefined, timeoutMs, stop);
  }

  async postJson(path: string, body: unknown, timeoutMs: number, stop?: AbortSignal): Promise<unknown> {
    return this.#json("POST", path, JSON.stringify(body), timeoutMs, stop);
  }

  async #json(
    method: Method,
    path: string,
    body: string | undefined,
    timeoutMs: number,
    stop: AbortSignal | undefined,
  ): Promise<unknown> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const limit = stop === undefined ? undefined : abortEither(timeout, stop);
    const signal = limit?.signal ?? timeout;
    let reply: { statusCode: number; body: Buffer };
    try {
      reply =
        this.#plainHttpBase === undefined
          ? await this.fetch(method, path, body, { signal, timeoutMs })
          : await wholeReply(
              this.#plainHttpBase + path,
              method,
              body === undefined ? this.#plainHeaders : this.#jsonHeaders,
              body,
              signal,
              this.#answerLimitBytes,
            );
    } finally {
      limit?.release();
    }
    if (reply.statusCode < 200 || reply.statusCode >= 300) {
      throw new Error(`${method} ${path} answered HTTP ${reply.statusCode}`);
    }
    try {
      return JSON.parse(reply.body.toString("utf8"));
    } catch {
      throw new Error(`${method} ${path} answered invalid JSON`);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#pool.close(), this.#http1?.close()]);
  }

  /** Whether this client's undici pool has been made (it is, on first use); for tests. */
  get poolCreated(): boolean {
    return this.#pool.created;
  }
}

/** The request's id and, when the client sent one, its trace context. */
function idHeaders(ids: CallIds | undefined): Record<string, string> {
  if (ids === undefined) return {};
  const headers: Record<string, string> = { "x-request-id": ids.requestId };
  if (ids.traceparent !== undefined) headers["traceparent"] = ids.traceparent;
  return headers;
}
