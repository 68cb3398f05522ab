// A small counting semaphore: at most `max` tasks run at once, the others wait their turn in order. File downloads
// and uploads to the media server share one, so a burst of attachments cannot open hundreds of sockets and files.
export class Limiter {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly max: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.max) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
