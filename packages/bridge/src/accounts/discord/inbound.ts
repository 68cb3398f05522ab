// What Discord shows the bridge, as text other platforms can read: mentions of users, roles and channels by name,
// custom emoji as :name:, embeds when ShowEmbeds, attachments as Extra.file entries (their CDN URLs, which need no
// credentials), and /me (italics) as user_action. Pure: the connection supplies the names it knows.
import { type FileInfo, fileInfo } from "../../core/files/file-info.ts";
import { Events, emptyMessage, type Message } from "../../message.ts";

export interface NameLookup {
  user(id: string): string | undefined;
  role(id: string): string | undefined;
  channel(id: string): string | undefined;
}

interface Attachment {
  id: string;
  name: string;
  url: string;
  size: number;
}

export interface InboundParts {
  content: string;
  embeds: readonly { title?: string | null; description?: string | null; url?: string | null }[];
}

/** Mentions and custom emoji made readable: `<@123>` -> `@alice`, `<@&1>` -> `@mods`, `<#2>` -> `#general`. */
export function readableContent(content: string, names: NameLookup): string {
  return content
    .replace(/<@!?(\d+)>/g, (match, id: string) => {
      const name = names.user(id);
      return name === undefined ? match : `@${name}`;
    })
    .replace(/<@&(\d+)>/g, (match, id: string) => {
      const name = names.role(id);
      return name === undefined ? match : `@${name}`;
    })
    .replace(/<#(\d+)>/g, (match, id: string) => {
      const name = names.channel(id);
      return name === undefined ? match : `#${name}`;
    })
    .replace(/<a?(:\w+:)\d+>/g, "$1");
}

/** Matterbridge's embed line: " embed: title - description - url". */
function embedText(embed: InboundParts["embeds"][number]): string {
  const fields = [embed.title, embed.description, embed.url].filter((f): f is string => !!f);
  return fields.length === 0 ? "" : ` embed: ${fields.join(" - ")}\n`;
}

/** The relayed text; "" when there is nothing to relay. */
export function inboundText(parts: InboundParts, names: NameLookup, showEmbeds: boolean): string {
  let text = readableContent(parts.content, names);
  if (showEmbeds) for (const embed of parts.embeds) text += embedText(embed);
  return text;
}

/** Discord's /me sends `_text_`; Matterbridge relays any message in underscores as an action, and so do we. */
export function asAction(text: string): { text: string; action: boolean } {
  if (text.length > 2 && text.startsWith("_") && text.endsWith("_") && !text.startsWith("__")) {
    return { text: text.slice(1, -1), action: true };
  }
  return { text, action: false };
}

export interface InboundMessage {
  id: string;
  channel: string;
  text: string;
  username: string;
  userid: string;
  avatar: string;
  parentId: string;
  attachments?: readonly Attachment[];
}

/** Discord's attachments as Matterbridge's FileInfo entries. */
function attachmentFiles(attachments: readonly Attachment[]): FileInfo[] {
  return attachments.map((a) => fileInfo({ Name: a.name, URL: a.url, Size: a.size, NativeID: a.id }));
}

export function bridgedMessage(input: InboundMessage): Message {
  const { text, action } = asAction(input.text);
  return emptyMessage({
    text,
    channel: input.channel,
    username: input.username,
    userid: input.userid,
    avatar: input.avatar,
    id: input.id,
    parent_id: input.parentId,
    event: action ? Events.userAction : "",
    Extra: input.attachments?.length ? { file: attachmentFiles(input.attachments) } : null,
  });
}

export function deleteMessage(id: string, channel: string): Message {
  return emptyMessage({ id, channel, event: Events.msgDelete });
}

/**
 * A member joining or leaving the server, as Matterbridge words it ("alice joins", "alice leaves": the server
 * nickname, else the user name), from "system". Such an event belongs to no channel: it goes into each gateway the
 * account relays from once, with that gateway's first channel of the account (`memberships`).
 */
export function memberMessages(
  name: string,
  joined: boolean,
  memberships: readonly { gateway: string; channel: string; direction: string }[],
): Message[] {
  const seen = new Set<string>();
  const messages: Message[] = [];
  for (const { gateway, channel, direction } of memberships) {
    if (direction === "out" || seen.has(gateway)) continue;
    seen.add(gateway);
    const text = `${name} ${joined ? "joins" : "leaves"}`;
    messages.push(emptyMessage({ text, channel, gateway, username: "system", event: Events.joinLeave }));
  }
  return messages;
}
