// The long poll of one Zulip event queue: GET /events with the last event id handled, each event handed over in
// order, then the next poll. It is the account's receiving side, not a retry loop: an expired queue
// (BAD_EVENT_QUEUE_ID) is handed to `queueGone` (which registers a new one and reads back what was missed) and the
// poll goes on with that queue; any other failure ends it with `failed` (the core reconnects). `stop()` ends the
// pending poll at once.
import type { ZulipAnswer, ZulipApi } from "./api.ts";
import { isQueueGone } from "./errors.ts";

export interface QueuePosition {
  queueId: string;
  lastEventId: number;
}

export interface PollHandlers {
  /** Every event of an answer, in order; must not throw. */
  events(events: readonly unknown[]): void;
  /** The queue is gone: a new one, registered and caught up. */
  queueGone(): Promise<QueuePosition>;
  failed(error: unknown): void;
}

export class EventPoller {
  readonly #api: ZulipApi;
  readonly #abort = new AbortController();

  constructor(api: ZulipApi) {
    this.#api = api;
  }

  start(position: QueuePosition, handlers: PollHandlers): void {
    void this.#run(position, handlers);
  }

  stop(): void {
    this.#abort.abort();
  }

  async #run(start: QueuePosition, handlers: PollHandlers): Promise<void> {
    let position = start;
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      let answer: ZulipAnswer;
      try {
        answer = await this.#api.events(position.queueId, position.lastEventId, signal);
      } catch (error) {
        if (signal.aborted) return;
        if (!isQueueGone(error)) return handlers.failed(error);
        try {
          position = await handlers.queueGone();
        } catch (registerError) {
          if (!signal.aborted) handlers.failed(registerError);
          return;
        }
        continue;
      }
      if (signal.aborted) return;
      const events = Array.isArray(answer.events) ? (answer.events as unknown[]) : [];
      for (const event of events) {
        const id = (event as { id?: unknown } | null)?.id;
        if (typeof id === "number" && Number.isSafeInteger(id) && id > position.lastEventId) {
          position = { ...position, lastEventId: id };
        }
      }
      handlers.events(events);
    }
  }
}
