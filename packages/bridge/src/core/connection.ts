// What a protocol implements: a Connection to its platform, created by its descriptor (accounts/<protocol>/index.ts)
// and driven by the core. The core supervises it (core/supervisor.ts: reconnects with backoff, rejoins channels) and
// feeds it through ordered per-channel queues (core/outbound-queue.ts: pacing, bound, holding while down, retries),
// so a protocol never writes a retry loop, a reconnect timer or a send queue of its own.
import type { Logger } from "pino";
import type { Direction } from "../config/direction.ts";
import type { Message } from "../message.ts";
import type { Delivery, RouteResult, SendResult } from "./account.ts";
import type { FileRequest } from "./files/download.ts";
import type { FileInfo } from "./files/file-info.ts";
import type { UnreadLog } from "./state-store.ts";

/** One channel of the account on one gateway, as the config says. */
export interface Membership {
  gateway: string;
  channel: string;
  direction: Direction;
  /** [gateway.<dir>.options] of that entry: key (IRC channel key), WebhookURL, Topic... */
  options: Readonly<Record<string, unknown>>;
}

/** A channel to join: each channel of the account once, with the options of the first gateway entry naming it. */
export interface JoinRequest {
  channel: string;
  options: Readonly<Record<string, unknown>>;
}

/** Given to a protocol when its Connection is created; valid for the account's whole life (across reconnects). */
export interface ConnectionContext {
  /** `<protocol>.<name>`, e.g. `irc.libera`. */
  readonly id: string;
  readonly protocol: string;
  readonly name: string;
  /** Already bound to the account (`{ account: id }`). Secrets never go in a log line. */
  readonly logger: Logger;
  readonly debug: boolean;
  /** Every gateway entry of this account. */
  readonly memberships: readonly Membership[];
  /** The config file's path ("" when there is none): files an account keeps by default go beside it. */
  readonly configPath: string;
  /**
   * Hands a message received from the platform to the core for routing. `message.channel` is the source channel.
   * A message whose `gateway` field is set is routed in that gateway only (the api account: the client names it);
   * leave it empty to route in every gateway the channel is on. Never call it with what the account itself sent.
   * Durable on return: the message is in the state file before the protocol acknowledges the event (unless the file
   * cannot be written, a full disk: the message is then relayed from memory only, and the store logs it; never thrown).
   */
  receive(message: Message): RouteResult;
  /**
   * `receive` for an account that acknowledges each message itself, later (the api account answers its POST): what
   * the message writes to the state file joins the other messages of this event-loop turn, in one transaction
   * committed at the end of the turn. Acknowledge it only once `written()` resolves.
   */
  receiveInTurn(message: Message): RouteResult;
  /**
   * Resolves once every message received so far is in the state file (at the end of the turn at the latest); rejects
   * when that commit failed (the messages are not kept: answer with an error).
   */
  written(): Promise<void>;
  /**
   * The link dropped after `connect()` had resolved (socket closed, ping timeout, kicked off the server...). The core
   * calls `disconnect()` to release what is left, then `connect()` again after a backoff, then `join()` again.
   * A report while connecting or joining makes that attempt a failed one (retried); reports while down or after a
   * stop are ignored. Idempotent. Detach the old client's listeners in `disconnect()` so a late event of a previous
   * connection cannot report on the new one.
   */
  disconnected(reason: unknown): void;
  /**
   * Something retrying cannot fix (credentials refused, account banned). The core disconnects the account and
   * leaves it down; on the first connect this stops start-up with an error naming the account. Prefer throwing
   * `AccountFailure` from `connect()` when it happens there.
   */
  failed(reason: unknown): void;
  /**
   * Waits for the account's next MessageDelay slot (the same pacer the outbound queues use, shared by all its
   * channels). The queue paces each `send`; a send that writes several platform messages for one delivery (IRC: one
   * line each) calls this before each one after the first, so every line keeps the pacing. Resolves at once when
   * MessageDelay is 0, and early when the account stops.
   */
  pace(): Promise<void>;
  /**
   * For a protocol that holds messages until a client reads them (the api account's buffer): where they are kept so
   * that a restart, even a crash, loses none a client has not read. Call it once; other protocols have no use for it.
   */
  unread(capacity: number): UnreadLog;
}

export interface Connection {
  /**
   * Connects (a server: listens). Resolves once usable: that is the "connected" report. Rejects with an
   * `AccountFailure` when retrying is pointless (start-up error on the first connect; the account stays down later),
   * with any other Error when it is worth retrying. One attempt only: the core decides when to try again. The core
   * gives up on an attempt after a timeout (and calls `disconnect()`), so a hanging connect is not fatal.
   */
  connect(): Promise<void>;
  /**
   * Joins one channel; called for each channel of the account after every successful connect, one at a time.
   * Reject only when the connection is unusable (the core then reconnects; `AccountFailure` leaves it down); a
   * refusal of one channel (banned, wrong key) should be logged and resolved, or the account would reconnect forever.
   */
  join(channel: JoinRequest): Promise<void>;
  /**
   * Sends one message to `delivery.channel` and returns the platform's id for it ("" when it has none), or a promise
   * of it. Called by the channel's outbound queue only while connected, one message at a time per channel, in order,
   * paced by MessageDelay. `delivery.message.id` non-empty = edit that message (a delete when the event is
   * msg_delete). Throw `RetryAfter` when the platform asks to wait (HTTP 429): the queue waits and sends the same
   * message again, keeping order; `PermanentSendError` when this message can never be sent (dropped, logged); any
   * other error is retried a few times, in order, then dropped. Must never feed the message back to `receive`.
   */
  send(delivery: Delivery): SendResult;
  /**
   * Optional, for a platform that is one ordered stream (IRC's socket): sends several messages of one channel at
   * once, in order, as one write, and resolves with their ids once the platform took all of them. The queue calls it
   * instead of `send` only when MessageDelay is 0 and several messages are waiting (a burst); a rejection counts as
   * a failed send of the first (none of them is counted as sent: all stay queued and are sent again, in order).
   */
  sendBatch?(deliveries: readonly Delivery[]): Promise<string[]>;
  /**
   * Optional. The bridge is stopping: refuse new inbound work from now on (an HTTP API answers 503 with
   * Retry-After: `retryAfterSeconds`), but stay connected, keep sending what the queues drain, and keep serving
   * reads, until `disconnect()`.
   */
  stopAccepting?(retryAfterSeconds: number): void;
  /**
   * Optional, for a protocol that puts its attachments in `Extra.file`: where the bytes of one of them are (the URL
   * and the headers the account's credentials need, e.g. a bot token), from the entry it made (its NativeID, URL).
   * The core downloads it, bounded (core/files/); undefined when it cannot be fetched (the file stays a link).
   */
  fileRequest?(file: FileInfo): FileRequest | undefined | Promise<FileRequest | undefined>;
  /** Closes everything this connection holds; called before each reconnect and at stop. Must be idempotent. */
  disconnect(): Promise<void>;
}

/** Connecting cannot succeed by retrying (bad credentials, an address that cannot be listened on). */
export class AccountFailure extends Error {
  override readonly name = "AccountFailure";
}

/** The platform asked to wait before sending again (rate limit); the queue retries the same message after it. */
export class RetryAfter extends Error {
  override readonly name = "RetryAfter";
  constructor(
    readonly delayMs: number,
    message = `rate limited: retry after ${delayMs} ms`,
  ) {
    super(message);
  }
}

/** This message can never be sent (too large, channel gone...): the queue drops it with a log line. */
export class PermanentSendError extends Error {
  override readonly name = "PermanentSendError";
}
