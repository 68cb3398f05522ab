// Who is in which of our channels. IRC's QUIT and NICK name no channel, so relaying them to the right gateways needs
// the members of each channel (Matterbridge takes the quit message for a channel name, so its quits never route).
// Nicks are kept in the server's case folding (the caller passes a `fold` function: irc-framework's caseLower).

export class Roster {
  readonly #members = new Map<string, Set<string>>();

  constructor(readonly fold: (name: string) => string) {}

  /** The server's NAMES list for a channel (on our join): replaces what was known. */
  setMembers(channel: string, nicks: readonly string[]): void {
    this.#members.set(this.fold(channel), new Set(nicks.map(this.fold)));
  }

  add(channel: string, nick: string): void {
    const key = this.fold(channel);
    let members = this.#members.get(key);
    if (members === undefined) {
      members = new Set();
      this.#members.set(key, members);
    }
    members.add(this.fold(nick));
  }

  remove(channel: string, nick: string): void {
    this.#members.get(this.fold(channel))?.delete(this.fold(nick));
  }

  /** We left the channel: forget it. */
  forget(channel: string): void {
    this.#members.delete(this.fold(channel));
  }

  /** The channels (folded) that `nick` is in; with `remove`, the nick leaves them all (a quit). */
  channelsOf(nick: string, remove = false): string[] {
    const folded = this.fold(nick);
    const found: string[] = [];
    for (const [channel, members] of this.#members) {
      if (!members.has(folded)) continue;
      found.push(channel);
      if (remove) members.delete(folded);
    }
    return found;
  }

  /** A nick change: the new nick is in every channel the old one was. Returns those channels. */
  rename(oldNick: string, newNick: string): string[] {
    const channels = this.channelsOf(oldNick, true);
    for (const channel of channels) this.#members.get(channel)?.add(this.fold(newNick));
    return channels;
  }

  clear(): void {
    this.#members.clear();
  }
}
