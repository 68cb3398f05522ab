// One conversation's long poll: asks Talk for what came after the last message handled (lookIntoFuture=1,
// lastKnownMessageId) and hands each message over in order, moving the offset as Talk's X-Chat-Last-Given says only
// once the messages before it were handled. The offset outlives the connection: after a reconnect the poll starts
// where it stopped, so what was said meanwhile is read and nothing is handled twice. A failure ends the poll and is
// reported (the core reconnects); a stop (abort) ends it quietly.
import { arrayOf, integerOf, objectOf } from "../json-fields.ts";
import { POLL_TIMEOUT_S, pollQuery } from "./chat-paths.ts";
import type { OcsClient } from "./ocs-client.ts";

/** Margin past Talk's own timeout before a silent poll counts as a dead link. */
const POLL_GRACE_MS = 15_000;

export interface PollHandlers {
  /** One entry of an answer, in order. */
  message(raw: unknown): Promise<void>;
  /** An answer the poll cannot go on from (not a list, no offset). */
  unreadable(answer: unknown, reason: string): void;
  /** The poll ended on an error (not on a stop). */
  failed(error: unknown): void;
}

export class RoomPoller {
  /** The current run: a new one starts only after the last has stopped, so two never share the offset. */
  #running: Promise<void> = Promise.resolve();

  constructor(
    readonly token: string,
    /** The id of the last message handled; Talk's offset. */
    public lastKnown: number,
  ) {}

  /** Polls until `signal` aborts or a request fails (after any earlier run has stopped). */
  run(client: OcsClient, signal: AbortSignal, handlers: PollHandlers): Promise<void> {
    this.#running = this.#running.then(() => this.#poll(client, signal, handlers));
    return this.#running;
  }

  async #poll(client: OcsClient, signal: AbortSignal, handlers: PollHandlers): Promise<void> {
    while (!signal.aborted) {
      let answer: Awaited<ReturnType<OcsClient["call"]>>;
      try {
        answer = await client.call("GET", pollQuery(this.token, this.lastKnown), {
          timeoutMs: POLL_TIMEOUT_S * 1000 + POLL_GRACE_MS,
          signal,
        });
      } catch (error) {
        if (!signal.aborted) handlers.failed(error);
        return;
      }
      if (answer.status === 304) continue;
      const entries = arrayOf(answer.data);
      const given = integerOf(Number(answer.headers.get("x-chat-last-given") ?? Number.NaN));
      if (entries === undefined) {
        handlers.unreadable(answer.data, "the answer is not a list of messages");
        handlers.failed(new Error("Talk answered a poll with something that is not a list of messages"));
        return;
      }
      for (const entry of entries) {
        if (signal.aborted) return;
        await handlers.message(entry);
        const id = integerOf(objectOf(entry)?.id);
        if (id !== undefined && id > this.lastKnown) this.lastKnown = id;
      }
      if (given !== undefined && given > this.lastKnown) this.lastKnown = given;
      if (given === undefined && entries.length > 0 && !entries.some((e) => integerOf(objectOf(e)?.id))) {
        // Nothing tells where the next poll starts: asking again would get the same answer forever.
        handlers.failed(new Error("Talk answered a poll without X-Chat-Last-Given or message ids"));
        return;
      }
    }
  }
}
