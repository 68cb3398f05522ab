// Not relaying a room's history: on join a MUC replays recent messages (each with a delay stamp) and then sends its
// subject, which XEP-0045 §7.2.15 places after the history. Both signals are used: a delayed message is never live,
// and nothing between our join and the room's subject is live either (a server that forgets the stamp is covered).

export interface ReplayCandidate {
  room: string;
  delayed: boolean;
  subject?: string;
}

/** Tracks which rooms are still replaying; one per connection, told about joins and disconnects. */
export class HistoryReplay {
  #joining = new Set<string>();

  /** Call when sending the join presence for `room`. */
  joining(room: string): void {
    this.#joining.add(room);
  }

  /** Call when leaving a room or losing the connection (a rejoin replays again). */
  forget(room?: string): void {
    if (room === undefined) this.#joining.clear();
    else this.#joining.delete(room);
  }

  /** Whether the room is between our join and its subject. */
  isJoining(room: string): boolean {
    return this.#joining.has(room);
  }

  /**
   * Whether a groupchat message is part of the replay (and so must not be relayed). The subject that ends a join's
   * replay counts as replay too: it announces the current topic, it does not change it.
   */
  isReplay(message: ReplayCandidate): boolean {
    if (message.subject !== undefined && this.#joining.delete(message.room)) return true;
    return message.delayed || this.#joining.has(message.room);
  }
}
