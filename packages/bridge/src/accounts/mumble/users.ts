// Who is on the server and in which channel, from UserState and UserRemove, and what that means for the channel the
// bot sits in: someone arriving in it (connected there or moved in) joins, someone leaving it (moved out, gone) leaves.

export interface MumbleUser {
  name: string;
  channelId: number;
}

export type Presence = { name: string; what: "joins" | "leaves" };

export class Users {
  readonly #bySession = new Map<number, MumbleUser>();

  get(session: number): MumbleUser | undefined {
    return this.#bySession.get(session);
  }

  /**
   * Applies a UserState. Returns the presence change in `watched` it makes (none for a first state without a
   * channel, which a server sends for a user in the root channel, id 0, by leaving the field out).
   */
  update(
    session: number,
    state: { name?: string; channelId?: number },
    watched: number | undefined,
  ): Presence | undefined {
    const known = this.#bySession.get(session);
    if (known === undefined) {
      const user = { name: state.name ?? `session ${session}`, channelId: state.channelId ?? 0 };
      this.#bySession.set(session, user);
      return user.channelId === watched ? { name: user.name, what: "joins" } : undefined;
    }
    if (state.name !== undefined) known.name = state.name;
    if (state.channelId === undefined || state.channelId === known.channelId) return undefined;
    const from = known.channelId;
    known.channelId = state.channelId;
    if (from === watched) return { name: known.name, what: "leaves" };
    if (state.channelId === watched) return { name: known.name, what: "joins" };
    return undefined;
  }

  /** Applies a UserRemove; returns "leaves" when the user was in `watched`. */
  remove(session: number, watched: number | undefined): Presence | undefined {
    const known = this.#bySession.get(session);
    this.#bySession.delete(session);
    return known !== undefined && known.channelId === watched ? { name: known.name, what: "leaves" } : undefined;
  }

  clear(): void {
    this.#bySession.clear();
  }
}
