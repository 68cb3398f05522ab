// Lets the soak hold its load generators still (for a quiet sample, or before a server restart) and let them go.

export class Pauser {
  #paused: { promise: Promise<void>; release: () => void } | undefined;

  get paused(): boolean {
    return this.#paused !== undefined;
  }

  pause(): void {
    if (this.#paused !== undefined) return;
    let release = () => {};
    const promise = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#paused = { promise, release };
  }

  resume(): void {
    this.#paused?.release();
    this.#paused = undefined;
  }

  /** Resolves at once unless paused, then when resumed. */
  wait(): Promise<void> {
    return this.#paused?.promise ?? Promise.resolve();
  }
}
