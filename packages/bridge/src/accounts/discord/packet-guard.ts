// Gateway events discord.js cannot handle, skipped instead of fatal. discord.js (14.x) hands each dispatch to its
// packet handlers from an event listener, unguarded: a MESSAGE_CREATE whose data is null, or whose author is not a
// user, throws there (and so does any listener of ours that the handler calls), and the throw ends the process. The
// client's WebSocketManager.handlePacket, through which every dispatch (and every one queued before ready) goes, is
// wrapped so that a throw skips that one event with the skipped-event log line.
import type { Client } from "discord.js";

type HandlePacket = (packet?: unknown, shard?: unknown) => boolean;

export function guardPackets(client: Client, skip: (packet: unknown, reason: unknown) => void): void {
  const manager = client.ws as unknown as { handlePacket?: HandlePacket };
  const original = manager.handlePacket;
  if (typeof original !== "function") return; // another discord.js: nothing to wrap
  manager.handlePacket = function guardedHandlePacket(packet?: unknown, shard?: unknown): boolean {
    try {
      return original.call(manager, packet, shard);
    } catch (error) {
      skip(packet, error);
      return true;
    }
  };
}
