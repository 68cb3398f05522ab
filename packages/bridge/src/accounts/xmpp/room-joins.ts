// Waiting for the answer to a MUC join: the room sends our own presence (status 110) once we are in, or an error
// presence (nick taken, password wrong, banned...). Keyed by room, one join at a time per room.
import type { OccupantPresence } from "./incoming.ts";

export class RoomJoins {
  readonly #pending = new Map<string, { resolve(presence: OccupantPresence): void; reject(error: Error): void }>();

  /** A promise for the room's answer to the join about to be sent; rejects after `timeoutMs`. */
  expect(room: string, timeoutMs: number): Promise<OccupantPresence> {
    return new Promise<OccupantPresence>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(room);
        reject(new Error(`no answer from ${room} to our join within ${timeoutMs} ms`));
      }, timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        this.#pending.delete(room);
      };
      this.#pending.set(room, {
        resolve: (presence) => {
          settle();
          resolve(presence);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
    });
  }

  /** Feeds an occupant presence; returns true when it answered a pending join. */
  answer(presence: OccupantPresence): boolean {
    const pending = this.#pending.get(presence.room);
    if (pending === undefined || !(presence.self || presence.kind === "error")) return false;
    pending.resolve(presence);
    return true;
  }

  /** Fails every pending join (the connection is going away). */
  abandon(reason: string): void {
    for (const pending of [...this.#pending.values()]) pending.reject(new Error(reason));
  }
}
