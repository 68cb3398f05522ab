// A small client for Nextcloud's OCS API as Talk uses it (no maintained Node library for Talk exists): basic auth
// with the app password, the `OCS-APIRequest: true` header every OCS call needs, JSON answers in the
// {ocs: {meta, data}} envelope, and Talk's X-Chat-Last-Given header. Failures come out as OcsError with the HTTP
// status, the OCS message and, for a 429, the wait asked for.
import { abortEither } from "@switchboard/common";
import { Agent, type Dispatcher } from "undici";
import { objectOf, stringOf } from "../json-fields.ts";

const CALL_TIMEOUT_MS = 30_000;
/** Nextcloud's throttle often answers 429 without Retry-After: wait this long then. */
const DEFAULT_RETRY_MS = 5_000;

export class OcsError extends Error {
  override readonly name = "OcsError";
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export interface OcsAnswer {
  status: number;
  /** `ocs.data`; undefined for a 304. */
  data: unknown;
  headers: Headers;
}

function retryAfterMs(headers: Headers): number {
  const seconds = Number(headers.get("retry-after"));
  return headers.has("retry-after") && Number.isFinite(seconds) && seconds >= 0
    ? Math.ceil(seconds * 1000)
    : DEFAULT_RETRY_MS;
}

export class OcsClient {
  readonly #authorization: string;
  readonly #dispatcher: Dispatcher | undefined;

  constructor(
    readonly baseUrl: string,
    login: string,
    appPassword: string,
    skipTlsVerify: boolean,
  ) {
    this.#authorization = `Basic ${Buffer.from(`${login}:${appPassword}`).toString("base64")}`;
    this.#dispatcher = skipTlsVerify ? new Agent({ connect: { rejectUnauthorized: false } }) : undefined;
  }

  /**
   * One OCS call. `path` starts after the server (`/ocs/v2.php/...`); `timeoutMs` is for a long poll. `signal`
   * aborts it (a disconnect).
   */
  async call(
    method: string,
    path: string,
    options: { body?: Record<string, unknown>; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<OcsAnswer> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? CALL_TIMEOUT_MS);
    const limit = options.signal ? abortEither(options.signal, timeout) : undefined;
    const headers: Record<string, string> = {
      Authorization: this.#authorization,
      "OCS-APIRequest": "true",
      Accept: "application/json",
    };
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        signal: limit?.signal ?? timeout,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        ...(this.#dispatcher ? { dispatcher: this.#dispatcher } : {}),
      } as RequestInit);
      text = await response.text();
    } finally {
      limit?.release();
    }
    if (response.status === 304) return { status: 304, data: undefined, headers: response.headers };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {}
    const ocs = objectOf(objectOf(parsed)?.ocs);
    if (response.ok && ocs !== undefined) return { status: response.status, data: ocs.data, headers: response.headers };
    const said = stringOf(objectOf(ocs?.meta)?.message) || stringOf(objectOf(parsed)?.message) || "";
    const reason = response.ok ? "an answer that is not OCS JSON" : `${response.status} ${said || response.statusText}`;
    throw new OcsError(
      response.ok ? 0 : response.status,
      reason.trim(),
      response.status === 429 ? retryAfterMs(response.headers) : undefined,
    );
  }

  async close(): Promise<void> {
    await this.#dispatcher?.close();
  }
}
