// What an account does with an event from its platform that it cannot read (a field of the wrong type, a null where
// an object belongs, a handler that throws on it): skip it, say so, and carry on. One bad event from a misbehaving
// server must never take the account or the process down, and a flood of them must not flood the log: one line per
// window, counting the ones skipped quietly since the last line.
import { thrownMessage } from "@switchboard/common";
import type { Logger } from "pino";
import { LogWindow } from "../core/log-window.ts";

/** How much of the event a log line shows. */
const EXCERPT_CHARS = 300;

/**
 * The first characters of an event for the log line: as JSON, or as its own text when it has one (an XML stanza).
 * Never throws: cycles and BigInts are described.
 */
export function excerpt(event: unknown): string {
  let text: string;
  try {
    const ownText =
      typeof event === "object" &&
      event !== null &&
      event.toString !== Object.prototype.toString &&
      !Array.isArray(event);
    text = ownText ? String(event) : (JSON.stringify(event) ?? String(event));
  } catch {
    text = Object.prototype.toString.call(event);
  }
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

export class MalformedEvents {
  readonly #logger: Logger;
  readonly #window: LogWindow;
  /** Every event skipped, logged or not. */
  skipped = 0;

  constructor(logger: Logger, now: () => number = Date.now) {
    this.#logger = logger;
    this.#window = new LogWindow(now);
  }

  /** Records one skipped event; `what` names it ("a Telegram update", "a Slack event"), `reason` says why. */
  skip(what: string, event: unknown, reason: unknown): void {
    this.skipped++;
    const quiet = this.#window.due();
    if (quiet === undefined) return;
    const because = thrownMessage(reason);
    const more = quiet > 0 ? ` (and ${quiet} more since the last such line)` : "";
    this.#logger.warn(
      { event: excerpt(event), reason: because, skipped: this.skipped },
      `skipped ${what} the bridge cannot read: ${because}${more}`,
    );
  }

  /** Runs a handler for one event; a throw skips the event instead of escaping. */
  guard(what: string, event: unknown, handle: () => void): void {
    try {
      handle();
    } catch (error) {
      this.skip(what, event, error);
    }
  }

  /** The same for an asynchronous handler: a rejection skips the event. */
  async guardAsync(what: string, event: unknown, handle: () => Promise<void>): Promise<void> {
    try {
      await handle();
    } catch (error) {
      this.skip(what, event, error);
    }
  }
}
