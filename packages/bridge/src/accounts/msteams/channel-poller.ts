// One channel's reading: Graph has no push for a signed-in user here, so the channel's threads are listed (newest
// activity first, replies expanded) and every root or reply changed since the last seen time is handed over, oldest
// change first; pages are followed while they still hold such changes. The last seen time moves as they are
// handled and outlives the connection (and, through the session file, a restart), so nothing said while away is
// missed; the versions handled (id and change time) are remembered so a change at the last seen time is not handled
// twice.
import { arrayOf } from "../json-fields.ts";
import type { TeamsGraph } from "./graph.ts";
import { readTeamsMessage, type TeamsMessage, threadEntries } from "./message-shape.ts";

/** Pages read at most per poll (50 threads each). */
const MAX_PAGES = 10;
const VERSIONS_KEPT = 5000;

export interface PollHandlers {
  /** `known`: the message was seen before (by this poller), so a change to it is an edit even at `since`. */
  message(message: TeamsMessage, since: number, known: boolean): Promise<void>;
  unreadable(raw: unknown, reason: string): void;
}

export class ChannelPoller {
  readonly #versions = new Set<string>();
  readonly #ids = new Set<string>();
  readonly #unreadable = new Set<string>();

  constructor(
    readonly channelId: string,
    /** The newest change handled (ms); undefined until the first poll sets it to the newest change there is. */
    public since: number | undefined,
  ) {}

  async poll(graph: TeamsGraph, handlers: PollHandlers): Promise<void> {
    const since = this.since;
    const changed: TeamsMessage[] = [];
    let next: string | undefined;
    let pages = 0;
    do {
      const page = await graph.threads(this.channelId, next);
      const threads = arrayOf(page.value);
      if (threads === undefined) throw new Error("Graph answered a list of messages with something that is not a list");
      let recent = false;
      for (const raw of threads.flatMap(threadEntries)) {
        const message = readTeamsMessage(raw);
        if (typeof message === "string") {
          this.#skip(raw, message, handlers);
          continue;
        }
        if (since !== undefined && message.modified < since) continue;
        recent = true;
        if (!this.#versions.has(version(message))) changed.push(message);
      }
      next = since === undefined || !recent ? undefined : page.next;
    } while (next !== undefined && ++pages < MAX_PAGES);

    changed.sort((a, b) => a.modified - b.modified);
    for (const message of changed) {
      // The first poll only learns where the channel stands: what was said before the bridge came is not relayed.
      const id = `${message.replyToId ?? ""}/${message.id}`;
      if (since !== undefined) await handlers.message(message, since, this.#ids.has(id));
      remember(this.#versions, version(message));
      remember(this.#ids, id);
      this.since = Math.max(this.since ?? 0, message.modified);
    }
    this.since ??= 0;
  }

  /** An unreadable message is reported once, not at every poll that lists it again. */
  #skip(raw: unknown, reason: string, handlers: PollHandlers): void {
    let key: string;
    try {
      key = JSON.stringify(raw) ?? String(raw);
    } catch {
      key = String(raw);
    }
    if (this.#unreadable.has(key)) return;
    this.#unreadable.add(key);
    if (this.#unreadable.size > VERSIONS_KEPT)
      this.#unreadable.delete(this.#unreadable.values().next().value as string);
    handlers.unreadable(raw, reason);
  }
}

function remember(set: Set<string>, key: string): void {
  set.add(key);
  if (set.size > VERSIONS_KEPT) set.delete(set.values().next().value as string);
}

const version = (message: TeamsMessage) => `${message.replyToId ?? ""}/${message.id}@${message.modified}`;
