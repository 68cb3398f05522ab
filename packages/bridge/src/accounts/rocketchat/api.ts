// The REST calls the rocketchat account makes (developer.rocket.chat "REST API"), on fetch: login for a token, then
// X-Auth-Token and X-User-Id on each call. Rocket.Chat's own JavaScript clients do not install from npm (see
// docs/bridge.md), so this is our own small client. Errors come out as RocketChatApiError with the status,
// Rocket.Chat's errorType and error text, and the wait a 429 asks for.
import { Agent, type Dispatcher } from "undici";

const CALL_TIMEOUT_MS = 30_000;

export class RocketChatApiError extends Error {
  override readonly name = "RocketChatApiError";
  constructor(
    readonly status: number,
    readonly errorType: string,
    message: string,
    /** For a 429: how long the server asks to wait. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export type Json = Record<string, unknown>;

/**
 * The wait a 429 asks for: Retry-After (seconds), else X-RateLimit-Reset (Rocket.Chat writes epoch milliseconds;
 * epoch seconds and a delay in seconds are read too),
 * else the "wait N seconds" of its error text, else one second.
 */
function retryAfterMs(headers: Headers, errorText: string, now = Date.now()): number {
  const retryAfter = Number(headers.get("retry-after") ?? Number.NaN);
  if (Number.isFinite(retryAfter) && retryAfter >= 0) return Math.ceil(retryAfter * 1000);
  const reset = Number(headers.get("x-ratelimit-reset") ?? Number.NaN);
  if (Number.isFinite(reset) && reset > 0) {
    const ms = reset > 1e12 ? reset - now : reset > 1e9 ? reset * 1000 - now : reset * 1000;
    if (ms >= 0 && ms < 3_600_000) return Math.ceil(ms);
  }
  const said = /wait (\d+(?:\.\d+)?) seconds?/i.exec(errorText);
  return said ? Math.ceil(Number(said[1]) * 1000) : 1000;
}

export class RocketChatApi {
  readonly #base: string;
  readonly #dispatcher: Dispatcher | undefined;
  #auth: { token: string; userId: string } | undefined;

  constructor(serverUrl: string, skipTlsVerify: boolean) {
    this.#base = `${serverUrl}/api/v1`;
    this.#dispatcher = skipTlsVerify ? new Agent({ connect: { rejectUnauthorized: false } }) : undefined;
  }

  get token(): string {
    return this.#auth?.token ?? "";
  }

  /** Logs in; the token and user id are used from then on. */
  async login(user: string, password: string): Promise<{ userId: string; authToken: string }> {
    const answer = await this.#call("POST", "/login", { user, password });
    const data = (answer.data ?? {}) as Json;
    if (typeof data.authToken !== "string" || typeof data.userId !== "string") {
      throw new RocketChatApiError(0, "", "the login answer has no authToken or userId");
    }
    this.#auth = { token: data.authToken, userId: data.userId };
    return { userId: data.userId, authToken: data.authToken };
  }

  me = () => this.#call("GET", "/me");
  roomByName = (name: string) => this.#call("GET", `/rooms.info?roomName=${encodeURIComponent(name)}`);
  joinChannel = (roomId: string) => this.#call("POST", "/channels.join", { roomId });
  postMessage = (body: Json) => this.#call("POST", "/chat.postMessage", body);
  update = (roomId: string, msgId: string, text: string) => this.#call("POST", "/chat.update", { roomId, msgId, text });
  delete = (roomId: string, msgId: string) => this.#call("POST", "/chat.delete", { roomId, msgId });
  message = (msgId: string) => this.#call("GET", `/chat.getMessage?msgId=${encodeURIComponent(msgId)}`);
  /** What changed in a room after a time: `result.updated` (new or edited) and `result.deleted`. */
  changesSince = (roomId: string, since: Date) =>
    this.#call(
      "GET",
      `/chat.syncMessages?roomId=${encodeURIComponent(roomId)}&lastUpdate=${encodeURIComponent(since.toISOString())}`,
    );

  async close(): Promise<void> {
    await this.#dispatcher?.close();
  }

  async #call(method: string, path: string, body?: Json): Promise<Json> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (this.#auth) Object.assign(headers, { "X-Auth-Token": this.#auth.token, "X-User-Id": this.#auth.userId });
    const response = await fetch(`${this.#base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      ...(this.#dispatcher ? { dispatcher: this.#dispatcher } : {}),
    } as RequestInit);
    const text = await response.text();
    let answer: Json = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) answer = parsed as Json;
    } catch {}
    if (response.ok && answer.success !== false && answer.status !== "error") return answer;
    const said = [answer.error, answer.message, answer.reason].find((v) => typeof v === "string" && v !== "");
    const message = typeof said === "string" ? said : text.trim().slice(0, 200);
    throw new RocketChatApiError(
      response.status,
      typeof answer.errorType === "string" ? answer.errorType : "",
      `${response.status} ${message || response.statusText}`,
      response.status === 429 ? retryAfterMs(response.headers, message) : undefined,
    );
  }
}
