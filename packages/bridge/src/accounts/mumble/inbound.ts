// What Mumble shows the bridge, as bridged messages: channel text messages (HTML made plain) and users joining or
// leaving the bot's channel (join_leave, from user "system" as the IRC account words them). Pure.
import { Events, emptyMessage, type Message } from "../../message.ts";
import { htmlToText } from "./html-text.ts";
import type { Presence } from "./users.ts";

export function textMessage(channel: string, sender: string, html: string): Message | undefined {
  const text = htmlToText(html);
  if (text === "") return undefined;
  return emptyMessage({ text, channel, username: sender, userid: sender });
}

export function presenceMessage(channel: string, presence: Presence): Message {
  return emptyMessage({
    text: `${presence.name} ${presence.what}`,
    channel,
    username: "system",
    userid: presence.name,
    event: Events.joinLeave,
  });
}
