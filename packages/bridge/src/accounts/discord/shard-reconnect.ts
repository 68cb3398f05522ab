// The core owns reconnects (backoff, holding messages), so discord.js's own must stop when the account disconnects.
// discord.js 14.28.1 (@discordjs/ws 1.2.3) does not always stop: a shard whose connection dropped waits 500 ms and
// then connects again, and `client.destroy()` during that wait finds it idle, skips it, and the shard reconnects
// anyway, for ever, as an orphan connection nobody owns. Before a client is destroyed its shards are therefore told
// never to connect again. This reaches into the pinned library's internals (client.ws._ws.strategy.shards), which is
// why the version is pinned exactly; the discord tests' "nothing left running" catches a change.
import type { Client } from "discord.js";

interface ShardInternals {
  internalConnect?: () => Promise<void>;
}

interface WebSocketManagerInternals {
  _ws?: { strategy?: { shards?: Map<number, ShardInternals> } } | null;
}

export function stopShardReconnects(client: Client): void {
  const shards = (client.ws as unknown as WebSocketManagerInternals)._ws?.strategy?.shards;
  for (const shard of shards?.values() ?? []) {
    shard.internalConnect = async () => {};
  }
}
