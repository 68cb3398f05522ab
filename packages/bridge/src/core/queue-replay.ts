// At start-up, before any account connects: the messages the state file still holds go back into their
// destinations' queues, in the order they were queued, ahead of anything new. Each is settled (removed from the
// file) when its destination confirms it, as when it was first routed. An edit, delete or reply that waited for the
// id of a message queued before it waits for it again, through the id map the router loaded.
import type { Logger } from "pino";
import { Events, PARENT_NOT_FOUND } from "../message.ts";
import type { CopyId } from "./id-cache.ts";
import type { Destination } from "./router.ts";
import type { QueuedRow, StateStore } from "./state-store.ts";

export interface ReplayTarget {
  destination(gateway: string, account: string, channel: string): Destination | undefined;
}

/** This destination's copy of the source message `key`, from the id map. */
function copyOn(destination: Destination, row: QueuedRow, key: string): CopyId | undefined {
  return destination.cache.get(key)?.find((c) => c.account === row.account && c.channel === row.channel);
}

/** Returns how many messages were put back in queues. */
export function replayQueues(state: StateStore, router: ReplayTarget, logger: Logger): number {
  const rows = state.queued();
  const gone: number[] = [];
  let replayed = 0;
  for (const row of rows) {
    const destination = router.destination(row.gateway, row.account, row.channel);
    if (destination === undefined) {
      gone.push(row.seq);
      continue;
    }
    const message = row.message;
    const waits: Promise<void>[] = [];
    if (row.editOf !== undefined) {
      const original = copyOn(destination, row, row.editOf);
      if (original?.pending !== undefined) {
        waits.push(
          original.pending.then((id) => {
            message.id = id;
          }),
        );
      } else {
        message.id = original?.id ?? "";
      }
    }
    if (row.replyTo !== undefined) {
      const parent = copyOn(destination, row, row.replyTo);
      if (parent?.pending !== undefined) {
        waits.push(
          parent.pending.then((id) => {
            message.parent_id = id === "" ? PARENT_NOT_FOUND : id;
          }),
        );
      } else {
        message.parent_id = parent?.id || PARENT_NOT_FOUND;
      }
    }
    const isDelete = message.event === Events.msgDelete;
    if (isDelete && waits.length === 0 && message.id === "") {
      // The message it deletes never reached this destination.
      state.settle(row.seq);
      continue;
    }
    const ready = waits.length === 0 ? undefined : Promise.all(waits).then(() => !(isDelete && message.id === ""));
    const sent = destination.account.send(
      { message, channel: row.channel, gateway: row.gateway, options: destination.options },
      ready,
    );
    replayed++;
    const result = typeof sent === "string" ? Promise.resolve(sent) : sent.catch(() => "");
    const copy = row.copyOf === undefined ? undefined : copyOn(destination, row, row.copyOf);
    if (copy !== undefined && copy.id === "") {
      copy.pending = result;
      result.then((id) => destination.cache.confirm(row.copyOf, copy, id));
    }
    const { copyOf, gateway, account, channel } = row;
    result.then((id) =>
      state.settle(row.seq, copyOf === undefined ? undefined : { gateway, key: copyOf, account, channel, id }),
    );
  }
  if (gone.length > 0) {
    state.discard(gone);
    logger.warn(
      { discarded: gone.length },
      `${gone.length} queued message(s) in the state file were for destinations no longer in the config; discarded`,
    );
  }
  if (replayed > 0) {
    logger.info(
      { replayed, stateFile: state.path },
      `${replayed} queued message(s) from the last run are queued again`,
    );
  }
  return replayed;
}
