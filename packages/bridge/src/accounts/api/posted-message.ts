// What a post answers: the message as the client submitted it, before the router rewrites it (nick, account,
// timestamp). The usual message (no Extra) is kept as a snapshot and encoded when the answer is written, once its
// turn is committed, rather than when it is routed: a turn's 256 answer bodies (about 300 bytes each) were kept from
// the routing to the commit, through the collections in between.
import { encodeMessage, type Message } from "../../message.ts";

export class PostedMessage {
  /** The snapshot, or its encoding once read (a message with Extra is encoded at once). */
  #submitted: Message | string;
  /** The destinations the router gave it (set once it is routed). */
  deliveries = 0;

  /** Before the message is routed: what it holds now is the answer. */
  constructor(message: Message) {
    // Extra's objects are the router's copies' too: encoded now, as they are now. The other fields are strings.
    this.#submitted = message.Extra === null ? { ...message } : encodeMessage(message);
  }

  /** The message as submitted, encoded (the answer's body). */
  get encoded(): string {
    const submitted = this.#submitted;
    if (typeof submitted === "string") return submitted;
    const encoded = encodeMessage(submitted);
    this.#submitted = encoded;
    return encoded;
  }
}
