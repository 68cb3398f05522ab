// Zulip's real-time events API (zulip.com/api/real-time-events): `POST /register` makes a queue for a user, numbered
// events are appended to it, and `GET /events?queue_id&last_event_id` long-polls it: the events after last_event_id
// at once if there are any, else the request is held until one comes or a heartbeat is due. A queue that no longer
// exists (expired, or the server restarted) answers 400 BAD_EVENT_QUEUE_ID.

export type ZulipEvent = Record<string, unknown> & { type: string; id: number };

interface Waiter {
  lastEventId: number;
  answer(events: ZulipEvent[]): void;
  timer: NodeJS.Timeout;
}

export interface EventQueue {
  readonly queueId: string;
  readonly userId: number;
  readonly eventTypes: ReadonlySet<string> | undefined;
  events: ZulipEvent[];
  nextId: number;
  waiter: Waiter | undefined;
}

export class EventQueues {
  readonly #queues = new Map<string, EventQueue>();
  #counter = 0;
  /** How long a poll with nothing to say is held before a heartbeat answers it. */
  heartbeatMs: number;

  constructor(heartbeatMs: number) {
    this.heartbeatMs = heartbeatMs;
  }

  register(userId: number, eventTypes: string[] | undefined): EventQueue {
    const queue: EventQueue = {
      queueId: `${Date.now().toString(16)}:${++this.#counter}`,
      userId,
      eventTypes: eventTypes === undefined ? undefined : new Set(eventTypes),
      events: [],
      nextId: 0,
      waiter: undefined,
    };
    this.#queues.set(queue.queueId, queue);
    return queue;
  }

  get(queueId: string): EventQueue | undefined {
    return this.#queues.get(queueId);
  }

  /** Queues of a user (polling or not). */
  ofUser(userId: number): EventQueue[] {
    return [...this.#queues.values()].filter((queue) => queue.userId === userId);
  }

  /** Appends an event to every queue of these users that asked for its type. */
  push(userIds: Iterable<number>, event: Record<string, unknown> & { type: string }): void {
    const wanted = new Set(userIds);
    for (const queue of this.#queues.values()) {
      if (!wanted.has(queue.userId)) continue;
      if (queue.eventTypes !== undefined && !queue.eventTypes.has(event.type)) continue;
      this.#append(queue, event);
    }
  }

  /** Appends an event to one queue whatever its type (a fault). */
  pushRaw(queue: EventQueue, event: Record<string, unknown>): void {
    this.#append(queue, event as ZulipEvent);
  }

  /** Long-polls: `answer` gets the events after lastEventId, now or once there are some (or a heartbeat). */
  poll(queue: EventQueue, lastEventId: number, dontBlock: boolean, answer: (events: ZulipEvent[]) => void): void {
    queue.events = queue.events.filter((event) => event.id > lastEventId);
    if (queue.events.length > 0 || dontBlock) {
      answer(queue.events);
      return;
    }
    this.#release(queue, []);
    const timer = setTimeout(() => this.#append(queue, { type: "heartbeat" } as ZulipEvent), this.heartbeatMs);
    queue.waiter = { lastEventId, answer, timer };
  }

  /** Removes a queue (DELETE /events, expiry); its held poll is answered with BAD_EVENT_QUEUE_ID by `onGone`. */
  remove(queueId: string, onGone: (answer: (events: ZulipEvent[]) => void) => void): void {
    const queue = this.#queues.get(queueId);
    if (queue === undefined) return;
    this.#queues.delete(queueId);
    const waiter = queue.waiter;
    queue.waiter = undefined;
    if (waiter !== undefined) {
      clearTimeout(waiter.timer);
      onGone(waiter.answer);
    }
  }

  queueIds(): string[] {
    return [...this.#queues.keys()];
  }

  /** Drops every held poll without answering (the connections are being cut). */
  forgetWaiters(): void {
    for (const queue of this.#queues.values()) {
      if (queue.waiter !== undefined) clearTimeout(queue.waiter.timer);
      queue.waiter = undefined;
    }
  }

  #append(queue: EventQueue, event: Record<string, unknown>): void {
    queue.events.push({ ...structuredClone(event), id: queue.nextId++ } as ZulipEvent);
    const waiter = queue.waiter;
    if (waiter === undefined) return;
    queue.waiter = undefined;
    clearTimeout(waiter.timer);
    waiter.answer(queue.events.filter((e) => e.id > waiter.lastEventId));
  }

  #release(queue: EventQueue, events: ZulipEvent[]): void {
    const waiter = queue.waiter;
    if (waiter === undefined) return;
    queue.waiter = undefined;
    clearTimeout(waiter.timer);
    waiter.answer(events);
  }
}
