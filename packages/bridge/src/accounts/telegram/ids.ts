// Telegram's names for things, as the account writes them. A channel is a chat id ("-1001234567890"), or
// "<chat id>/<topic id>" for one topic of a forum group (as in Matterbridge). A message id is "<chat id>:<message
// id>": Telegram numbers messages per chat, so the bare number (Matterbridge's id) would make two chats of one
// account collide in the id cache.

export interface ChannelAddress {
  chatId: number;
  /** The forum topic's thread id, when the channel is one topic. */
  topicId: number | undefined;
}

const CHANNEL = /^(-?\d+)(?:\/(\d+))?$/;

export function parseChannel(channel: string): ChannelAddress | undefined {
  const match = CHANNEL.exec(channel.trim());
  if (match === null) return undefined;
  const chatId = Number(match[1]);
  if (!Number.isSafeInteger(chatId)) return undefined;
  return { chatId, topicId: match[2] === undefined ? undefined : Number(match[2]) };
}

export function channelName(chatId: number, topicId?: number): string {
  return topicId === undefined ? String(chatId) : `${chatId}/${topicId}`;
}

export function messageKey(chatId: number, messageId: number): string {
  return `${chatId}:${messageId}`;
}

/** The message id inside one of our ids, when it belongs to this chat. */
export function messageIdIn(key: string, chatId: number): number | undefined {
  const match = /^(-?\d+):(\d+)$/.exec(key);
  if (match === null || Number(match[1]) !== chatId) return undefined;
  return Number(match[2]);
}
