// The REST calls the zulip account makes (zulip.com/api), on fetch with HTTP Basic auth (the bot's email and API key)
// and form bodies. zulip-js is not used for these: it cannot abort a long poll (a disconnect must end the pending
// GET /events at once), has no timeouts (a server that went silent would hang the account forever) and hides the
// HTTP status and headers (Retry-After). Its wire format is what the simulator is checked with. Errors come out as
// ZulipApiError with the status, Zulip's error code and message, and the wait a 429 asks for.
import { abortEither } from "@switchboard/common";
import { Agent, type Dispatcher } from "undici";

const CALL_TIMEOUT_MS = 30_000;
/** Zulip answers an idle poll with a heartbeat within about a minute; silence beyond this means the link is dead. */
const POLL_TIMEOUT_MS = 90_000;

export class ZulipApiError extends Error {
  override readonly name = "ZulipApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** For a 429: how long the server asks to wait. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export type ZulipAnswer = Record<string, unknown>;
type Params = Record<string, string | number | boolean | object>;

/** The wait a 429 asks for: the Retry-After header, else the body's `retry-after` (seconds), else one second. */
function retryAfterMs(headers: Headers, body: ZulipAnswer): number {
  for (const seconds of [Number(headers.get("retry-after") ?? Number.NaN), Number(body["retry-after"])]) {
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  }
  return 1000;
}

const encode = (params: Params): URLSearchParams =>
  new URLSearchParams(
    Object.entries(params).map(([key, value]): [string, string] => [
      key,
      typeof value === "object" ? JSON.stringify(value) : String(value),
    ]),
  );

export class ZulipApi {
  readonly #base: string;
  readonly #auth: string;
  readonly #dispatcher: Dispatcher | undefined;

  constructor(serverUrl: string, email: string, apiKey: string, skipTlsVerify: boolean) {
    this.#base = `${serverUrl}/api/v1`;
    this.#auth = `Basic ${Buffer.from(`${email}:${apiKey}`).toString("base64")}`;
    this.#dispatcher = skipTlsVerify ? new Agent({ connect: { rejectUnauthorized: false } }) : undefined;
  }

  me = () => this.#call("GET", "/users/me");
  register = (params: Params) => this.#call("POST", "/register", params);
  /** One long poll of the event queue; `signal` ends it early (a disconnect). */
  events = (queueId: string, lastEventId: number, signal: AbortSignal) =>
    this.#call("GET", "/events", { queue_id: queueId, last_event_id: lastEventId }, signal, POLL_TIMEOUT_MS);
  deleteQueue = (queueId: string) => this.#call("DELETE", "/events", { queue_id: queueId });
  streamId = (name: string) => this.#call("GET", "/get_stream_id", { stream: name });
  subscribe = (names: string[]) =>
    this.#call("POST", "/users/me/subscriptions", { subscriptions: names.map((name) => ({ name })) });
  send = (stream: string, topic: string, content: string) =>
    this.#call("POST", "/messages", { type: "stream", to: stream, topic, content });
  edit = (id: string, content: string) => this.#call("PATCH", `/messages/${encodeURIComponent(id)}`, { content });
  delete = (id: string) => this.#call("DELETE", `/messages/${encodeURIComponent(id)}`);
  message = (id: string) => this.#call("GET", `/messages/${encodeURIComponent(id)}`, { apply_markdown: false });
  /** The stream's messages after `anchor` (a message id), oldest first, at most `count`. */
  messagesAfter = (stream: string, anchor: number, count: number) =>
    this.#call("GET", "/messages", {
      anchor,
      include_anchor: false,
      num_before: 0,
      num_after: count,
      apply_markdown: false,
      narrow: [{ operator: "stream", operand: stream }],
    });

  async close(): Promise<void> {
    await this.#dispatcher?.close();
  }

  async #call(
    method: string,
    path: string,
    params: Params = {},
    signal?: AbortSignal,
    timeoutMs = CALL_TIMEOUT_MS,
  ): Promise<ZulipAnswer> {
    const form = encode(params);
    const inQuery = method === "GET" || method === "DELETE";
    const timeout = AbortSignal.timeout(timeoutMs);
    const limit = signal === undefined ? undefined : abortEither(signal, timeout);
    let text: string;
    let response: Response;
    try {
      response = await fetch(`${this.#base}${path}${inQuery && form.size > 0 ? `?${form}` : ""}`, {
        method,
        headers: {
          Authorization: this.#auth,
          ...(inQuery ? {} : { "Content-Type": "application/x-www-form-urlencoded" }),
        },
        ...(inQuery ? {} : { body: form.toString() }),
        signal: limit?.signal ?? timeout,
        ...(this.#dispatcher ? { dispatcher: this.#dispatcher } : {}),
      } as RequestInit);
      text = await response.text();
    } finally {
      limit?.release();
    }
    let body: ZulipAnswer = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) body = parsed as ZulipAnswer;
    } catch {}
    if (response.ok && body.result !== "error") return body;
    const msg = typeof body.msg === "string" && body.msg !== "" ? body.msg : text.trim().slice(0, 200);
    throw new ZulipApiError(
      response.status,
      typeof body.code === "string" ? body.code : "",
      `${response.status} ${msg || response.statusText}`,
      response.status === 429 ? retryAfterMs(response.headers, body) : undefined,
    );
  }
}
