// What the router sees of an account: an identity, capabilities, and a send that feeds the account's outbound queues.
// Protocols implement a Connection (core/connection.ts) instead; the core wraps it (core/supervised-account.ts).
import type { Message } from "../message.ts";
import type { FileRequest } from "./files/download.ts";
import type { FileInfo } from "./files/file-info.ts";
import type { PreparedFiles } from "./files/file-relay.ts";
import type { LocalFile } from "./files/local-file.ts";

export interface Capabilities {
  /** Whether the platform shows `user_typing` events (Matterbridge: slack, discord). */
  userTyping: boolean;
  /** Whether the platform shows `notice_irc` events (Matterbridge delivers them to IRC destinations only). */
  notices: boolean;
  /**
   * Whether the account sends files as native uploads (`Delivery.uploads`); otherwise it shows them as links, one
   * line per `Extra.file` entry with a URL (accounts/file-lines.ts).
   */
  uploads: boolean;
}

/** One message for one destination channel; `message` is that destination's own copy. */
export interface Delivery {
  message: Message;
  /** The destination channel on this account (the message's `channel` keeps the source channel, as Matterbridge). */
  channel: string;
  gateway: string;
  /** [gateway.<dir>.options] of the destination entry. */
  options: Readonly<Record<string, unknown>>;
  /**
   * Files to upload with this message, on disk (only for an account with the `uploads` capability, only for a new
   * message). The message's `Extra.file` then lists only the files to show as links. Read them during the send.
   */
  uploads?: readonly LocalFile[];
  /** The core's: the message's files while they are fetched (the account's queue waits for them). */
  files?: PreparedFiles;
}

/**
 * The id the destination gave the delivered message ("" when it has none). Ids let later edits, deletes and replies
 * reach the right copy. A promise for messages that are queued or sent asynchronously; it never rejects.
 */
export type SendResult = string | Promise<string>;

/** What routing a received message did. */
export interface RouteResult {
  /** Number of destination channels the message was handed to. */
  deliveries: number;
  /** Why nothing was delivered, when that is the case and the reason is known. */
  dropped?: "ignored" | "no-route" | "internal-event" | "stopping";
}

/** How accounts hand what they receive to the core. */
export interface MessageSink {
  /**
   * `message.channel` is the source channel on the account. A non-empty `message.gateway` restricts routing to that
   * gateway (a source that addresses one gateway); empty routes in every gateway the channel is on.
   */
  receive(source: Account, message: Message): RouteResult;
}

export interface Account {
  /** `<protocol>.<name>`, the value of the `account` field of messages it originates. */
  readonly id: string;
  readonly protocol: string;
  readonly name: string;
  readonly capabilities: Capabilities;
  /**
   * Hands a message to the destination channel's outbound queue. `ready`, when given, must settle before the message
   * is sent (the router uses it to fill in the destination's id of an edited original or of a reply's parent that
   * is still being sent); it resolves false when the message is to be skipped. Never throws.
   */
  send(delivery: Delivery, ready?: Promise<boolean>): SendResult;
  /** Where the bytes of a file this account received are, with its credentials (undefined: it cannot fetch it). */
  fileRequest?(file: FileInfo): FileRequest | undefined | Promise<FileRequest | undefined>;
}
