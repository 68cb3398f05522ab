// The ordered queue of one destination (account, channel). Every message for that channel passes here: it is sent
// only while the account is connected, one at a time and in order, paced by the account's MessageDelay, held (up to
// MessageQueue messages) while the account is down, retried in order after a rate-limit wait or a transient error,
// and, when it edits or replies to a message whose id is not known yet, sent only once that id is.
//
// The common case costs nothing extra: an idle queue of a connected, unpaced account sends at once, synchronously.
// Unpaced (MessageDelay 0), when the connection has a sendBatch (IRC: one socket write), messages go together through
// it, still in order and each held until the batch is confirmed: those that waited behind one being sent, and those
// queued in one moment (an idle queue starts sending once the current microtasks are done, not at the first message,
// so the messages routed in one event-loop callback, such as a burst of posts, leave in one write instead of two).
import { thrownMessage } from "@switchboard/common";
import type { Logger } from "pino";
import type { Delivery, SendResult } from "./account.ts";
import { type BackoffPolicy, backoffDelay } from "./backoff.ts";
import { type Clock, type Delay, delay } from "./clock.ts";
import { PermanentSendError, RetryAfter } from "./connection.ts";
import type { DropReason } from "./observer.ts";
import type { Pacer } from "./pacer.ts";

export interface QueuePolicy {
  /** Messages held at most (waiting or being sent); a message arriving beyond it is dropped (MessageQueue). */
  capacity: number;
  /** Retries of a message whose send failed with a transient error, before it is dropped. */
  sendRetries: number;
  /** Delays between those retries. */
  retryBackoff: BackoffPolicy;
  /** How many rate-limit waits (RetryAfter) one message may take before it is dropped. */
  maxRateLimitWaits: number;
  /** How long a message may wait for its `ready` promise (an edit's original id) before it is dropped. */
  readyTimeoutMs: number;
}

/** Messages handed to one sendBatch at most; a longer burst goes in several (IRC: one write of a few hundred lines). */
const MAX_BATCH = 256;

export const DEFAULT_QUEUE_POLICY: Omit<QueuePolicy, "capacity"> = {
  sendRetries: 3,
  retryBackoff: { baseMs: 500, capMs: 10_000 },
  maxRateLimitWaits: 10,
  readyTimeoutMs: 10_000,
};

export interface QueueDeps {
  /** The destination channel, for log lines. */
  channel: string;
  /** Bound to the account already; the queue adds the channel. */
  logger: Logger;
  clock: Clock;
  random: () => number;
  pacer: Pacer;
  /** The connection's send. */
  send(delivery: Delivery): SendResult;
  /** The connection's sendBatch, when it has one (see Connection.sendBatch): used for bursts when unpaced. */
  sendBatch?(deliveries: readonly Delivery[]): Promise<string[]>;
  /** Whether the account is connected; when it comes back up the owner calls `resume()`. */
  isUp(): boolean;
  /** Told what became of each message (metrics); nobody by default. */
  observer?: QueueObserver;
}

/** What the queue reports of its messages; the owner adds the account (core/observer.ts). */
export interface QueueObserver {
  /** The destination confirmed it, `elapsedMs` after it was queued. */
  sent(delivery: Delivery, elapsedMs: number): void;
  rateLimited(delivery: Delivery): void;
  dropped(delivery: Delivery, reason: DropReason): void;
}

interface Item {
  delivery: Delivery;
  /** Settles before the message may be sent; false = skip it (e.g. a delete whose original was never sent). */
  ready: Promise<boolean> | undefined;
  resolve(id: string): void;
  /** Not sent before this time (a rate-limit wait or a retry delay). */
  notBefore: number;
  /** When it was queued: the relay latency runs from here to the destination's confirmation. */
  queuedAt: number;
  attempts: number;
  rateLimitWaits: number;
}

export class OutboundQueue {
  readonly #items: Item[] = [];
  readonly #policy: QueuePolicy;
  readonly #deps: QueueDeps;
  #pumping = false;
  #closed = false;
  #sleep: Delay | undefined;
  #droppedInBurst = 0;
  #droppedTotal = 0;
  /** Resolved (and cleared) when the queue next holds nothing: a stop waits on this to drain. */
  #emptyWaiters: (() => void)[] = [];

  constructor(policy: QueuePolicy, deps: QueueDeps) {
    this.#policy = policy;
    this.#deps = deps;
  }

  /** Messages held (waiting, or being sent). */
  get size(): number {
    return this.#items.length;
  }

  /** Messages dropped because the queue was full, over its life. */
  get dropped(): number {
    return this.#droppedTotal;
  }

  /**
   * Queues a message; returns the destination's id for it, synchronously when it could be sent at once, else a
   * promise that resolves when it is sent ("" when dropped). Never throws, never rejects.
   */
  enqueue(delivery: Delivery, ready?: Promise<boolean>): SendResult {
    if (this.#closed) return "";
    const deps = this.#deps;
    const batching = deps.sendBatch !== undefined && deps.pacer.intervalMs <= 0;
    if (
      !batching &&
      ready === undefined &&
      this.#items.length === 0 &&
      !this.#pumping &&
      deps.isUp() &&
      deps.pacer.ready()
    ) {
      deps.pacer.reserve();
      const queuedAt = deps.clock.now();
      let result: SendResult;
      try {
        result = deps.send(delivery);
      } catch (error) {
        result = Promise.reject(error);
      }
      if (typeof result === "string") {
        deps.observer?.sent(delivery, deps.clock.now() - queuedAt);
        return result;
      }
      const { item, promise } = this.#newItem(delivery, undefined);
      this.#items.push(item);
      void this.#pump(result);
      return promise;
    }
    if (this.#items.length >= this.#policy.capacity) {
      this.#drop(delivery);
      return "";
    }
    const { item, promise } = this.#newItem(delivery, ready);
    this.#items.push(item);
    if (!this.#pumping && deps.isUp()) {
      if (batching) this.#pumpSoon();
      else void this.#pump(undefined);
    }
    return promise;
  }

  /** Starts the pump once the current microtasks are done, so that what is queued meanwhile joins the first batch. */
  #pumpSoon(): void {
    this.#pumping = true;
    queueMicrotask(this.#startPump);
  }

  readonly #startPump = (): void => {
    void this.#pump(undefined);
  };

  /** Resolves once the queue holds nothing (at once if it is empty): every message sent, dropped or closed. */
  whenEmpty(): Promise<void> {
    if (this.#items.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#emptyWaiters.push(resolve));
  }

  /** The account is connected again: send what was held. */
  resume(): void {
    // A pump still running (waiting out a pacing or retry delay) checks the state itself when its wait ends.
    if (this.#closed || this.#pumping) return;
    if (this.#items.length > 0 && this.#deps.isUp()) void this.#pump(undefined);
  }

  /** Stops the queue; the messages still held are not delivered (their promises resolve ""). Returns how many. */
  close(): number {
    this.#closed = true;
    this.#sleep?.cancel();
    const left = this.#items.splice(0);
    for (const item of left) item.resolve("");
    this.#logDropSummary();
    this.#notifyEmpty();
    return left.length;
  }

  #newItem(delivery: Delivery, ready: Promise<boolean> | undefined): { item: Item; promise: Promise<string> } {
    let resolve: (id: string) => void = () => {};
    const promise = new Promise<string>((done) => {
      resolve = done;
    });
    const queuedAt = this.#deps.clock.now();
    return { item: { delivery, ready, resolve, notBefore: 0, queuedAt, attempts: 0, rateLimitWaits: 0 }, promise };
  }

  /** Sends the head of the queue until it is empty, the account is down, or the queue is closed. */
  async #pump(inFlight: Promise<string> | undefined): Promise<void> {
    this.#pumping = true;
    const deps = this.#deps;
    try {
      let pending = inFlight;
      while (!this.#closed) {
        const item = this.#items[0];
        if (item === undefined) break;
        let attempt: SendResult;
        if (pending !== undefined) {
          attempt = pending;
          pending = undefined;
        } else {
          if (!deps.isUp()) break;
          if (item.ready !== undefined) {
            // Either way the loop starts over: the account may have gone down meanwhile.
            await this.#awaitReady(item);
            continue;
          }
          const wait = item.notBefore - deps.clock.now();
          if (wait > 0) {
            await this.#wait(wait);
            continue;
          }
          const batch = this.#batchAtHead();
          if (batch !== undefined) {
            await this.#sendBatch(batch);
            continue;
          }
          const paced = deps.pacer.reserve();
          if (paced > 0) {
            await this.#wait(paced);
            if (this.#closed || !deps.isUp()) break;
          }
          try {
            attempt = deps.send(item.delivery);
          } catch (error) {
            attempt = Promise.reject(error);
          }
        }
        try {
          const id = await attempt;
          this.#items.shift();
          deps.observer?.sent(item.delivery, deps.clock.now() - item.queuedAt);
          item.resolve(id);
        } catch (error) {
          this.#failed(item, error);
        }
      }
    } finally {
      this.#pumping = false;
      if (this.#items.length === 0) {
        this.#logDropSummary();
        this.#notifyEmpty();
      }
    }
  }

  /**
   * The messages at the head that can go together in one sendBatch: only without pacing (each would otherwise
   * wait for its own slot), none waiting for an id or a delay, none with files (those are fetched first). Undefined
   * when fewer than two can: the single send is used.
   */
  #batchAtHead(): Item[] | undefined {
    const deps = this.#deps;
    if (deps.sendBatch === undefined || deps.pacer.intervalMs > 0 || this.#items.length < 2) return undefined;
    const now = deps.clock.now();
    let end = 0;
    while (end < this.#items.length && end < MAX_BATCH) {
      const item = this.#items[end] as Item;
      if (item.ready !== undefined || item.notBefore > now || item.delivery.files !== undefined) break;
      end++;
    }
    return end < 2 ? undefined : this.#items.slice(0, end);
  }

  /** Sends a batch; all of it confirmed leaves the queue, else the first counts as failed and all stay queued. */
  async #sendBatch(batch: Item[]): Promise<void> {
    const deps = this.#deps;
    let ids: string[];
    try {
      ids = await (deps.sendBatch as NonNullable<QueueDeps["sendBatch"]>)(batch.map((item) => item.delivery));
    } catch (error) {
      this.#failed(batch[0] as Item, error);
      return;
    }
    // Only the pump takes items off the head, so the batch is still there (unless close() emptied the queue).
    this.#items.splice(0, batch.length);
    const now = deps.clock.now();
    batch.forEach((item, index) => {
      deps.observer?.sent(item.delivery, now - item.queuedAt);
      item.resolve(ids[index] ?? "");
    });
  }

  async #wait(ms: number): Promise<void> {
    this.#sleep = delay(this.#deps.clock, ms);
    await this.#sleep.done;
    this.#sleep = undefined;
  }

  /** Waits (bounded) for the item's `ready`; returns false when the item was removed instead. */
  async #awaitReady(item: Item): Promise<boolean> {
    const ready = item.ready;
    if (ready === undefined) return true;
    // Held in #sleep so that close() ends the wait at once.
    const timer = delay(this.#deps.clock, this.#policy.readyTimeoutMs);
    this.#sleep = timer;
    const verdict = await Promise.race([ready.catch(() => false), timer.done.then(() => "timeout" as const)]);
    timer.cancel();
    this.#sleep = undefined;
    item.ready = undefined;
    if (this.#closed) return false;
    if (verdict === true) return true;
    this.#items.shift();
    item.resolve("");
    if (verdict === "timeout") {
      this.#deps.logger.warn(
        { channel: this.#deps.channel, waitedMs: this.#policy.readyTimeoutMs },
        "edit or reply dropped: the id of the message it refers to never became known",
      );
    }
    return false;
  }

  #failed(item: Item, error: unknown): void {
    const deps = this.#deps;
    const where = { channel: deps.channel };
    const reason = thrownMessage(error);
    // Every rate-limit answer counts, the one that exhausts the waits too.
    if (error instanceof RetryAfter) deps.observer?.rateLimited(item.delivery);
    if (error instanceof RetryAfter && item.rateLimitWaits < this.#policy.maxRateLimitWaits) {
      item.rateLimitWaits++;
      item.notBefore = deps.clock.now() + Math.max(0, error.delayMs);
      deps.logger.debug({ ...where, waitMs: error.delayMs }, "rate limited: waiting before sending again");
      return;
    }
    if (!(error instanceof PermanentSendError) && !(error instanceof RetryAfter)) {
      // A send that failed because the link dropped is held for the reconnect; it does not use up its retries.
      if (!deps.isUp()) return;
      if (item.attempts < this.#policy.sendRetries) {
        const wait = backoffDelay(item.attempts, this.#policy.retryBackoff, deps.random);
        item.attempts++;
        item.notBefore = deps.clock.now() + wait;
        deps.logger.debug({ ...where, attempt: item.attempts, waitMs: wait, reason }, "send failed; will retry");
        return;
      }
    }
    this.#items.shift();
    item.resolve("");
    deps.observer?.dropped(item.delivery, "send_failed");
    const tries = item.attempts + 1 + item.rateLimitWaits;
    deps.logger.warn({ ...where, attempts: tries, reason }, `message to ${deps.channel} dropped: ${reason}`);
  }

  #notifyEmpty(): void {
    for (const resolve of this.#emptyWaiters.splice(0)) resolve();
  }

  /** Logged once when a burst of drops starts and once (with the count) when the queue has drained. */
  #drop(delivery: Delivery): void {
    this.#deps.observer?.dropped(delivery, "queue_full");
    this.#droppedTotal++;
    this.#droppedInBurst++;
    if (this.#droppedInBurst === 1) {
      this.#deps.logger.warn(
        { channel: this.#deps.channel, capacity: this.#policy.capacity },
        `outbound queue to ${this.#deps.channel} is full (${this.#policy.capacity} messages): dropping new messages until it drains (raise MessageQueue to hold more)`,
      );
    }
  }

  #logDropSummary(): void {
    if (this.#droppedInBurst === 0) return;
    this.#deps.logger.warn(
      {
        channel: this.#deps.channel,
        dropped: this.#droppedInBurst,
        droppedTotal: this.#droppedTotal,
      },
      `outbound queue to ${this.#deps.channel}: ${this.#droppedInBurst} message(s) dropped while it was full`,
    );
    this.#droppedInBurst = 0;
  }
}
