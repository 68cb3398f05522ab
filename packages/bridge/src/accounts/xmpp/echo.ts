// Not relaying our own messages: a MUC reflects every message to its sender. A reflection is recognised by our
// occupant nick in that room (what Matterbridge does) or by an id we sent (origin-id or the kept stanza id), which
// still works while another client of the same account uses our nick.

/** The ids of the last `capacity` messages we sent, oldest forgotten first. */
export class SentIds {
  #ids = new Set<string>();

  constructor(readonly capacity = 1_000) {}

  add(id: string): void {
    this.#ids.delete(id);
    this.#ids.add(id);
    if (this.#ids.size > this.capacity) {
      const oldest = this.#ids.values().next().value;
      if (oldest !== undefined) this.#ids.delete(oldest);
    }
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  get size(): number {
    return this.#ids.size;
  }
}

export interface EchoCandidate {
  nick: string;
  id?: string;
  originId?: string;
}

/** Whether a groupchat message is our own, reflected by the room. `ourNick` is our occupant nick in that room. */
export function isOwnEcho(message: EchoCandidate, ourNick: string, sent?: SentIds): boolean {
  if (ourNick !== "" && message.nick === ourNick) return true;
  if (sent === undefined) return false;
  return (
    (message.originId !== undefined && sent.has(message.originId)) || (message.id !== undefined && sent.has(message.id))
  );
}
