// The one interface every protocol implements. The core routes between Accounts and never imports a protocol;
// a protocol folder under accounts/ implements this and registers a factory (accounts/registry.ts).
import type { Logger } from "pino";
import type { AccountConfig } from "../config/types.ts";
import type { Message } from "../message.ts";

export interface Capabilities {
  /** Whether the platform shows `user_typing` events (Matterbridge: slack, discord). */
  userTyping: boolean;
}

/** One message for one destination channel; `message` is that destination's own copy. */
export interface Delivery {
  message: Message;
  /** The destination channel on this account (the message's `channel` keeps the source channel, as Matterbridge). */
  channel: string;
  gateway: string;
  /** [gateway.<dir>.options] of the destination entry. */
  options: Readonly<Record<string, unknown>>;
}

/**
 * The id the destination gave the delivered message ("" when it has none). Ids let later edits, deletes and replies
 * reach the right copy. May be a promise for platforms that answer asynchronously.
 */
export type SendResult = string | Promise<string>;

/** What routing a received message did. */
export interface RouteResult {
  /** Number of destination channels the message was handed to. */
  deliveries: number;
  /** Why nothing was delivered, when that is the case and the reason is known. */
  dropped?: "ignored" | "no-route" | "internal-event";
}

/** How an account hands what it receives to the core. */
export interface MessageSink {
  /**
   * `message.channel` is the source channel on the account. `onlyGateway` restricts routing to one gateway
   * (the api account: the client names the gateway).
   */
  receive(source: Account, message: Message, onlyGateway?: string): RouteResult;
}

export interface AccountContext {
  sink: MessageSink;
  logger: Logger;
  debug: boolean;
  /** Gateways this account is on, with its channel and direction there. */
  memberships: readonly { gateway: string; channel: string; direction: "in" | "out" | "inout" }[];
}

export interface Account {
  /** `<protocol>.<name>`, the value of the `account` field of messages it originates. */
  readonly id: string;
  readonly protocol: string;
  readonly name: string;
  readonly capabilities: Capabilities;
  /** Connects/listens. Rejects with an Error whose message is one line for the operator. */
  start(context: AccountContext): Promise<void>;
  /** Disconnects and releases everything it owns; resolves when done. */
  stop(): Promise<void>;
  /**
   * Delivers a message to the platform. Must not feed it back into the sink (the core's loop prevention relies on
   * accounts never re-injecting what they send).
   */
  send(delivery: Delivery): SendResult;
}

export type AccountFactory = (config: AccountConfig) => Account;
