// The ids of the posts an account made, to know its own posts when the platform shows them back (an echo) without
// the marks that usually tell (its user id, a bot id: lost when the post went through a webhook, a proxy or another
// account). The platform often shows the echo before it answers the post with its id, so an inbound event in a
// channel waits until the posts in flight to that channel have their ids (bounded), then asks.

/** Ids kept, oldest forgotten first. */
const KEPT = 2000;
/** The longest an inbound event waits for posts in flight to its channel. */
const SETTLE_MS = 5000;

export class OwnPosts {
  readonly #ids = new Set<string>();
  readonly #inFlight = new Map<string, Set<Promise<unknown>>>();

  has(id: string): boolean {
    return id !== "" && this.#ids.has(id);
  }

  add(id: string): void {
    if (id === "") return;
    this.#ids.delete(id);
    this.#ids.add(id);
    if (this.#ids.size > KEPT) this.#ids.delete(this.#ids.values().next().value as string);
  }

  /** Remembers the id a post to `channel` resolves with; the post's result is passed on unchanged. */
  track<T>(channel: string, post: Promise<T>, idOf: (result: T) => string): Promise<T> {
    let pending = this.#inFlight.get(channel);
    if (pending === undefined) {
      pending = new Set();
      this.#inFlight.set(channel, pending);
    }
    const posts = pending;
    const tracked = post.then((result) => {
      this.add(idOf(result));
      return result;
    });
    const settled = tracked.then(
      () => undefined,
      () => undefined,
    );
    posts.add(settled);
    void settled.then(() => {
      posts.delete(settled);
      if (posts.size === 0 && this.#inFlight.get(channel) === posts) this.#inFlight.delete(channel);
    });
    return tracked;
  }

  /** Resolves once the posts to `channel` in flight now have settled, or after a few seconds at most. */
  async settled(channel: string): Promise<void> {
    const pending = this.#inFlight.get(channel);
    if (pending === undefined || pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SETTLE_MS);
      timer.unref();
    });
    await Promise.race([Promise.all(pending), bound]);
    clearTimeout(timer);
  }
}
