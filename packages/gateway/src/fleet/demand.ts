import type { EventBus } from "../telemetry/events.ts";

const HOUR_MS = 3_600_000;
/** Hours of demand kept per model: two weeks, for a week-over-week trend. */
const KEPT_HOURS = 14 * 24;

/** Requests per model per UTC hour, newest last: what fleet recommendations are computed from. */
export interface DemandView {
  /** The current hour (hours since the Unix epoch). */
  readonly hour: number;
  /** The first hour anything was recorded, if anything was. */
  readonly firstHour: number | undefined;
  /** Requests for `model` in each of the KEPT_HOURS hours up to and including the current one (oldest first). */
  hourly(model: string): number[];
  models(): Iterable<string>;
}

/**
 * Demand per model and hour, from the event stream: every completed request (streams and embeddings included) under
 * the model a backend served, or the requested name when the fleet knows it. Names the fleet does not know are not
 * recorded, so clients cannot grow it; each model keeps a fixed ring of KEPT_HOURS counters. In memory: a restart
 * starts the history over.
 */
export class DemandHistory implements DemandView {
  readonly #rings = new Map<string, { counts: Float64Array; hours: Float64Array }>();
  #firstHour: number | undefined;

  constructor(
    events: EventBus | undefined,
    readonly knows: (model: string) => boolean,
    readonly now: () => number = Date.now,
  ) {
    events?.on("request_completed", (event) => {
      const model = event.model ?? (knows(event.requestedModel) ? event.requestedModel : undefined);
      if (model !== undefined) this.record(model);
    });
  }

  get hour(): number {
    return Math.floor(this.now() / HOUR_MS);
  }

  get firstHour(): number | undefined {
    return this.#firstHour;
  }

  record(model: string, count = 1, at = this.now()): void {
    const hour = Math.floor(at / HOUR_MS);
    let ring = this.#rings.get(model);
    if (!ring) {
      ring = { counts: new Float64Array(KEPT_HOURS), hours: new Float64Array(KEPT_HOURS).fill(-1) };
      this.#rings.set(model, ring);
    }
    const slot = hour % KEPT_HOURS;
    if (ring.hours[slot] !== hour) {
      ring.hours[slot] = hour;
      ring.counts[slot] = 0;
    }
    ring.counts[slot]! += count;
    if (this.#firstHour === undefined || hour < this.#firstHour) this.#firstHour = hour;
  }

  hourly(model: string): number[] {
    const ring = this.#rings.get(model);
    const current = this.hour;
    const counts: number[] = [];
    for (let hour = current - KEPT_HOURS + 1; hour <= current; hour++) {
      const slot = ((hour % KEPT_HOURS) + KEPT_HOURS) % KEPT_HOURS;
      counts.push(ring && ring.hours[slot] === hour ? ring.counts[slot]! : 0);
    }
    return counts;
  }

  models(): Iterable<string> {
    return this.#rings.keys();
  }
}
