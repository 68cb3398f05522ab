// The Bot API's error answers: HTTP status = error_code, body {ok:false, error_code, description[, parameters]}, with
// the descriptions the real server (tdlib/telegram-bot-api) uses, so a client's error handling meets the real texts.

export class BotApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly retryAfter?: number,
  ) {
    super(description);
  }

  body(): Record<string, unknown> {
    return {
      ok: false,
      error_code: this.code,
      description: this.description,
      ...(this.retryAfter === undefined ? {} : { parameters: { retry_after: this.retryAfter } }),
    };
  }
}

export const badRequest = (what: string) => new BotApiError(400, `Bad Request: ${what}`);
export const forbidden = (what: string) => new BotApiError(403, `Forbidden: ${what}`);
export const unauthorized = (detail?: string) =>
  new BotApiError(401, detail === undefined ? "Unauthorized" : `Unauthorized: ${detail}`);
export const notFound = () => new BotApiError(404, "Not Found");
export const conflict = (what: string) => new BotApiError(409, `Conflict: ${what}`);
export const tooManyRequests = (seconds: number) =>
  new BotApiError(429, `Too Many Requests: retry after ${seconds}`, seconds);
