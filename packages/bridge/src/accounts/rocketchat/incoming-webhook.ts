// Posting through a Rocket.Chat incoming webhook (WebhookURL: /hooks/<id>/<token>), as Matterbridge's webhook mode
// does: POST JSON {text, alias, avatar or emoji, channel, tmid}. Rocket.Chat answers {success: true} without the
// message's id, so what is posted this way cannot be edited or deleted later. Failures come out as
// RocketChatApiError, as the REST client's do, and the URL (its token) never reaches an error message.
import { thrownMessage } from "@switchboard/common";
import { Agent, type Dispatcher } from "undici";
import { RocketChatApiError } from "./api.ts";

const CALL_TIMEOUT_MS = 30_000;

export interface WebhookPost {
  text: string;
  /** "#room" (or a room id): the incoming webhook posts there instead of its default channel. */
  channel: string;
  alias?: string;
  avatar?: string;
  emoji?: string;
  tmid?: string;
}

export class IncomingWebhook {
  readonly #url: string;
  readonly #dispatcher: Dispatcher | undefined;

  constructor(url: string, skipTlsVerify: boolean) {
    this.#url = url.trim();
    this.#dispatcher = skipTlsVerify ? new Agent({ connect: { rejectUnauthorized: false } }) : undefined;
  }

  async post(body: WebhookPost): Promise<void> {
    let response: Response;
    try {
      response = await fetch(this.#url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
        ...(this.#dispatcher ? { dispatcher: this.#dispatcher } : {}),
      } as RequestInit);
    } catch (error) {
      // What went wrong is in fetch's cause (refused, reset, a certificate); it names a host and port, not the URL.
      const cause = (error as { cause?: { message?: string } }).cause;
      throw new TypeError(
        `the incoming webhook (WebhookURL) is unreachable: ${cause?.message ?? thrownMessage(error)}`,
      );
    }
    const text = await response.text();
    let answer: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
        answer = parsed as Record<string, unknown>;
      }
    } catch {}
    if (response.ok && answer.success !== false) return;
    const said = [answer.error, answer.message].find((v) => typeof v === "string" && v !== "");
    const retry = Number(response.headers.get("retry-after") ?? Number.NaN);
    throw new RocketChatApiError(
      response.status,
      typeof answer.errorType === "string" ? answer.errorType : "",
      `${response.status} ${typeof said === "string" ? said : response.statusText} (the incoming webhook, WebhookURL)`,
      response.status === 429 ? (Number.isFinite(retry) ? retry * 1000 : 1000) : undefined,
    );
  }

  async close(): Promise<void> {
    await this.#dispatcher?.close();
  }
}
