// Display names and avatars of the members of each room, kept from the m.room.member events /sync delivers (state
// and timeline). Two members sharing a display name are told apart by their user id, as Matrix clients do.

interface Member {
  displayName: string | undefined;
  avatarUrl: string | undefined;
}

export class RoomMembers {
  readonly #rooms = new Map<string, Map<string, Member>>();

  /** Applies one m.room.member event (joins, profile changes, leaves). */
  update(roomId: string, userId: string, content: Record<string, unknown>): void {
    let room = this.#rooms.get(roomId);
    if (room === undefined) {
      room = new Map();
      this.#rooms.set(roomId, room);
    }
    if (content.membership !== "join" && content.membership !== "invite") {
      room.delete(userId);
      return;
    }
    room.set(userId, {
      displayName:
        typeof content.displayname === "string" && content.displayname !== "" ? content.displayname : undefined,
      avatarUrl: typeof content.avatar_url === "string" ? content.avatar_url : undefined,
    });
  }

  /** The name to show for a sender: the display name (with the user id when another member has it too), else the id. */
  displayName(roomId: string, userId: string): string | undefined {
    const room = this.#rooms.get(roomId);
    const name = room?.get(userId)?.displayName;
    if (room === undefined || name === undefined) return undefined;
    for (const [other, member] of room) {
      if (other !== userId && member.displayName === name) return `${name} (${userId})`;
    }
    return name;
  }

  avatarUrl(roomId: string, userId: string): string | undefined {
    return this.#rooms.get(roomId)?.get(userId)?.avatarUrl;
  }

  forgetRoom(roomId: string): void {
    this.#rooms.delete(roomId);
  }
}
