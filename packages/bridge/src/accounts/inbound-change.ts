// What a platform's message means for the bridge, as an account's pure reading (its inbound.ts) judges it: nothing
// (its own posts, system messages it does not relay), a delete, or a text (new or edited) — and that judgement
// handed to the core as the bridge's message.
import type { ConnectionContext } from "../core/connection.ts";
import { Events, emptyMessage, type Message } from "../message.ts";

interface InboundText {
  kind: "text";
  id: string;
  parentId: string;
  text: string;
  event: string;
  userId: string;
  username: string;
  edited: boolean;
}

export type InboundChange = { kind: "ignore" } | { kind: "delete"; id: string } | InboundText;

export const IGNORE: InboundChange = { kind: "ignore" };

/** Relays a change on `channel`; an edit's text ends with EditSuffix. `extra` adds fields the reading lacks (avatar). */
export function relayChange(
  context: ConnectionContext,
  change: InboundChange,
  channel: string,
  editSuffix: string,
  extra: Partial<Message> = {},
): void {
  if (change.kind === "ignore") return;
  if (change.kind === "delete") {
    context.receive(emptyMessage({ id: change.id, channel, event: Events.msgDelete }));
    return;
  }
  context.receive(
    emptyMessage({
      text: change.edited ? `${change.text}${editSuffix}` : change.text,
      channel,
      username: change.username,
      userid: change.userId,
      id: change.id,
      parent_id: change.parentId,
      event: change.event,
      ...extra,
    }),
  );
}
