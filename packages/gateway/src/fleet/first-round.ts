import type { Registry } from "./registry.ts";

/**
 * The gateway's first round of health probes. The gateway listens as soon as its server is ready, without waiting
 * for the round: one backend that does not answer would otherwise keep the port closed for up to
 * health_check.timeout_seconds at every start. Until the round settles, what reads the fleet's state waits for it:
 * - a request that finds no backend for its model (or none healthy) waits for the round's next probe result and is
 *   routed again, so those of backends that have answered go at once (decide-once-probed.ts);
 * - the model lists and the lifecycle operations wait for the whole round;
 * - /health answers at once, with the status "starting".
 */
export class FirstRound {
  #settled = false;
  #next: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** Resolves once every probe of the round has answered, failed or timed out. */
  readonly done: Promise<void>;

  /** `round` is the health checker's first round (it never rejects: each probe's failure is recorded instead). */
  constructor(round: Promise<void>, registry: Registry) {
    // Each probe of a first round moves its backend out of "unknown": a transition.
    const off = registry.onTransition(() => this.#wakeWaiters());
    const settle = () => {
      this.#settled = true;
      off();
      this.#wakeWaiters();
    };
    this.done = round.then(settle, settle);
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** Resolves at the round's next probe result, or once it has settled. */
  next(): Promise<void> {
    if (this.#settled) return Promise.resolve();
    this.#next ??= new Promise((resolve) => {
      this.#wake = resolve;
    });
    return this.#next;
  }

  #wakeWaiters(): void {
    const wake = this.#wake;
    this.#next = undefined;
    this.#wake = undefined;
    wake?.();
  }
}
