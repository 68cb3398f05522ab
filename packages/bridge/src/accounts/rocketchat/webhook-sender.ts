// Sending through the incoming webhook (WebhookURL). Rocket.Chat answers no id, so a copy posted this way cannot be
// edited or deleted later: an edit whose copy has no id comes as a new message (as in Matterbridge), and a delete of
// it never comes. A reply goes to its parent's thread: found with the API when the account is logged in, else from
// the thread roots of messages read from the outgoing webhook (Rocket.Chat threads have one root).
import type { Delivery } from "../../core/account.ts";
import { PARENT_NOT_FOUND } from "../../message.ts";
import { sendBySteps, showsAllButTyping } from "../delivery-steps.ts";
import { IncomingWebhook } from "./incoming-webhook.ts";
import type { RcMessage } from "./message-shape.ts";
import { type OutboundSettings, outboundText, postedAs } from "./outbound.ts";

/** Thread roots remembered, as many as message versions are elsewhere. */
const ROOTS_KEPT = 2000;

export class WebhookSender {
  readonly #url: string;
  readonly #skipTlsVerify: boolean;
  readonly #settings: OutboundSettings;
  readonly #roots = new Map<string, string>();
  #hook: IncomingWebhook | undefined;

  constructor(url: string, skipTlsVerify: boolean, settings: OutboundSettings) {
    this.#url = url;
    this.#skipTlsVerify = skipTlsVerify;
    this.#settings = settings;
  }

  open(): void {
    this.#hook ??= new IncomingWebhook(this.#url, this.#skipTlsVerify);
  }

  async close(): Promise<void> {
    const hook = this.#hook;
    this.#hook = undefined;
    await hook?.close();
  }

  /** A message read from the outgoing webhook: a reply's thread root is kept for replies to it. */
  remember(message: RcMessage): void {
    if (message.id === "" || message.threadId === "") return;
    this.#roots.set(message.id, message.threadId);
    if (this.#roots.size > ROOTS_KEPT) this.#roots.delete(this.#roots.keys().next().value as string);
  }

  /** `threadOf` finds a parent's thread over the API, when the account is logged in. */
  send(delivery: Delivery, threadOf?: (parentId: string) => Promise<string>): Promise<string> {
    const hook = this.#hook;
    if (hook === undefined) throw new Error("not connected");
    const post = async (text: string) => {
      const parentId = delivery.message.parent_id;
      const tmid =
        parentId === "" || parentId === PARENT_NOT_FOUND
          ? ""
          : threadOf
            ? await threadOf(parentId)
            : (this.#roots.get(parentId) ?? parentId);
      const as = postedAs(delivery, this.#settings);
      await hook.post({ text, channel: delivery.channel, ...as, ...(tmid ? { tmid } : {}) });
      return "";
    };
    return sendBySteps(delivery.message, {
      shows: showsAllButTyping,
      text: () => outboundText(delivery, this.#settings),
      remove: async () => {},
      alreadyGone: () => true,
      edit: (_id, text) => post(text),
      post,
    });
  }
}
