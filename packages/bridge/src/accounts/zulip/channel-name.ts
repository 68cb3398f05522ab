// A zulip channel as the config names it: "stream/topic:topic" (Matterbridge's form: that topic of that stream), or a
// bare "stream" (every topic of the stream; Matterbridge refuses it). Zulip compares stream and topic names without
// case, so the keys that find a binding are lower case.

export interface ZulipChannel {
  /** The configured name, as messages carry it. */
  name: string;
  stream: string;
  /** undefined: every topic of the stream. */
  topic: string | undefined;
}

const TOPIC_MARK = "/topic:";

export function parseChannel(name: string): ZulipChannel {
  const at = name.indexOf(TOPIC_MARK);
  if (at < 0) return { name, stream: name.trim(), topic: undefined };
  return { name, stream: name.slice(0, at).trim(), topic: name.slice(at + TOPIC_MARK.length).trim() };
}

/** The key of a binding: a stream and a topic, or a whole stream. */
export const bindingKey = (stream: string, topic: string | undefined): string =>
  topic === undefined ? `${stream.toLowerCase()}` : `${stream.toLowerCase()}\u0000${topic.toLowerCase()}`;
