// An account as the core runs it: the protocol's Connection, its Supervisor, and one OutboundQueue per destination
// channel (sharing the account's Pacer). This is what the router sends to.
import type { Logger } from "pino";
import type { AccountConfig } from "../config/types.ts";
import type { Message } from "../message.ts";
import type { Account, Capabilities, Delivery, MessageSink, SendResult } from "./account.ts";
import { type Clock, type Delay, delay, systemClock } from "./clock.ts";
import type { Connection, ConnectionContext, JoinRequest, Membership } from "./connection.ts";
import type { FileRequest } from "./files/download.ts";
import { type FileInfo, withFiles } from "./files/file-info.ts";
import type { PreparedFiles } from "./files/file-relay.ts";
import { accountCopy, type LocalFile, uploadedBytes } from "./files/local-file.ts";
import type { RelayObserver } from "./observer.ts";
import { DEFAULT_QUEUE_POLICY, OutboundQueue, type QueueObserver, type QueuePolicy } from "./outbound-queue.ts";
import { Pacer } from "./pacer.ts";
import { NO_STATE, type StateStore } from "./state-store.ts";
import { DEFAULT_CONNECT_TIMEOUT_MS, Supervisor } from "./supervisor.ts";

/** Knobs of the core that are not config keys; tests shorten them, the defaults are documented in docs/bridge.md. */
export interface CoreTuning {
  clock: Clock;
  random: () => number;
  connectTimeoutMs: number;
  queue: Omit<QueuePolicy, "capacity">;
}

const DEFAULT_TUNING: CoreTuning = {
  clock: systemClock,
  random: Math.random,
  connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
  queue: DEFAULT_QUEUE_POLICY,
};

export interface SupervisedAccountOptions {
  sink: MessageSink;
  logger: Logger;
  debug: boolean;
  memberships: readonly Membership[];
  tuning?: Partial<CoreTuning>;
  /** Told of sends, drops, rate limits and reconnect attempts (metrics). */
  observer?: RelayObserver;
  /** Where an api account's unread buffer is kept across restarts (none by default). */
  state?: StateStore;
  /** The config file's path, for files an account keeps beside it (msteams' session file). */
  configPath?: string;
}

/** Each channel once, with the options of the first entry naming it (an IRC channel key, for instance). */
function channelsToJoin(memberships: readonly Membership[]): JoinRequest[] {
  const channels = new Map<string, JoinRequest>();
  for (const m of memberships)
    if (!channels.has(m.channel)) channels.set(m.channel, { channel: m.channel, options: m.options });
  return [...channels.values()];
}

export class SupervisedAccount implements Account {
  readonly id: string;
  readonly protocol: string;
  readonly name: string;
  readonly capabilities: Capabilities;
  readonly connection: Connection;
  readonly supervisor: Supervisor;
  readonly #queues = new Map<string, OutboundQueue>();
  readonly #pacer: Pacer;
  readonly #queuePolicy: QueuePolicy;
  readonly #logger: Logger;
  readonly #tuning: CoreTuning;
  readonly #queueObserver: QueueObserver | undefined;
  readonly #observer: RelayObserver | undefined;
  /** A delivery with files as the connection gets it, once they are fetched. */
  readonly #filesDelivered = new WeakMap<Delivery, Delivery>();
  /** This account's copy of each relayed file: what it refuses is marked on its copy only (uploadedBytes). */
  readonly #ownFiles = new WeakMap<LocalFile, LocalFile>();
  /** Where what a stop leaves queued is kept for the next start, for its log line. */
  readonly #keptIn: string;
  /** Waits handed out by `context.pace()`, cut short at stop so no timer outlives the account. */
  readonly #paceWaits = new Set<Delay>();

  constructor(config: AccountConfig, options: SupervisedAccountOptions) {
    this.id = config.id;
    this.protocol = config.protocol;
    this.name = config.name;
    this.capabilities = { userTyping: false, notices: false, uploads: false, ...config.descriptor.capabilities };
    const tuning: CoreTuning = { ...DEFAULT_TUNING, ...options.tuning };
    this.#tuning = tuning;
    const statePath = options.state?.path;
    this.#keptIn = statePath === undefined ? "" : `; kept in ${statePath} for the next start`;
    this.#logger = options.logger.child({ account: config.id });
    this.#pacer = new Pacer(config.settings.MessageDelay, tuning.clock);
    this.#queuePolicy = { ...tuning.queue, capacity: config.settings.MessageQueue };
    const sink = options.sink;
    const state = options.state ?? NO_STATE;
    const observer = options.observer;
    this.#observer = observer;
    this.#queueObserver = observer && {
      sent: (delivery, elapsedMs) => observer.sent(this.id, delivery.gateway, elapsedMs),
      rateLimited: (delivery) => observer.rateLimited(this.id, delivery.gateway),
      dropped: (delivery, reason) => observer.dropped(this.id, delivery.gateway, reason),
    };
    const context: ConnectionContext = {
      id: config.id,
      protocol: config.protocol,
      name: config.name,
      logger: this.#logger,
      debug: options.debug,
      memberships: options.memberships,
      configPath: options.configPath ?? "",
      receive: (message: Message) => {
        const routed = sink.receive(this, message);
        state.commit();
        return routed;
      },
      receiveInTurn: (message: Message) => sink.receive(this, message),
      written: () => state.committed(),
      disconnected: (reason) => this.supervisor.reportDisconnected(reason),
      failed: (reason) => this.supervisor.reportFailed(reason),
      pace: () => this.#pace(),
      unread: (capacity) => state.unread(config.id, capacity),
    };
    this.connection = config.descriptor.create(config, context);
    this.supervisor = new Supervisor(this.connection, {
      account: config.id,
      logger: options.logger,
      clock: tuning.clock,
      random: tuning.random,
      reconnect: { baseMs: config.settings.ReconnectDelay, capMs: config.settings.ReconnectMaxDelay },
      connectTimeoutMs: tuning.connectTimeoutMs,
      channels: channelsToJoin(options.memberships),
      onUp: () => {
        for (const queue of this.#queues.values()) queue.resume();
      },
      onDown: () => {},
      onReconnectAttempt: () => observer?.reconnectAttempt(this.id),
    });
  }

  /** Connects and joins (see Supervisor.start). */
  start(): Promise<void> {
    return this.supervisor.start();
  }

  send(delivery: Delivery, ready?: Promise<boolean>): SendResult {
    let queue = this.#queues.get(delivery.channel);
    if (queue === undefined) {
      queue = new OutboundQueue(this.#queuePolicy, {
        channel: delivery.channel,
        logger: this.#logger,
        clock: this.#tuning.clock,
        random: this.#tuning.random,
        pacer: this.#pacer,
        send: (d) => (d.files === undefined ? this.connection.send(d) : this.#sendWithFiles(d, d.files)),
        sendBatch: this.connection.sendBatch?.bind(this.connection),
        isUp: () => this.supervisor.isUp,
        observer: this.#queueObserver,
      });
      this.#queues.set(delivery.channel, queue);
    }
    return queue.enqueue(delivery, ready);
  }

  fileRequest(file: FileInfo): FileRequest | undefined | Promise<FileRequest | undefined> {
    return this.connection.fileRequest?.(file);
  }

  /**
   * Once the message's files are fetched: an account that uploads gets the local copies of a new message's files
   * as `uploads` (and only the other files in Extra.file, as links); every account gets the media server's links.
   */
  async #sendWithFiles(delivery: Delivery, prepared: PreparedFiles): Promise<string> {
    const relayed = await prepared.ready;
    // The same object on every attempt, so a protocol can tell a retry (what it already sent) by it.
    let ready = this.#filesDelivered.get(delivery);
    if (ready === undefined) {
      const upload = this.capabilities.uploads && delivery.message.id === "";
      const uploads = upload ? relayed.flatMap((file) => (file.local ? [this.#own(file.local)] : [])) : [];
      const linked = relayed.filter((file) => !upload || file.local === undefined).map((file) => file.info);
      const message = { ...delivery.message, Extra: withFiles(delivery.message.Extra, linked) };
      ready = { ...delivery, message, uploads, files: undefined };
      this.#filesDelivered.set(delivery, ready);
    }
    const uploads = ready.uploads ?? [];
    const id = await this.connection.send(ready);
    // Only what the platform took: a file it refused went as its link.
    const bytes = uploadedBytes(uploads);
    if (bytes > 0) this.#observer?.fileBytes(this.id, delivery.gateway, bytes);
    return id;
  }

  #own(file: LocalFile): LocalFile {
    let own = this.#ownFiles.get(file);
    if (own === undefined) {
      own = accountCopy(file);
      this.#ownFiles.set(file, own);
    }
    return own;
  }

  async #pace(): Promise<void> {
    const wait = this.#pacer.reserve();
    if (wait <= 0) return;
    const pending = delay(this.#tuning.clock, wait);
    this.#paceWaits.add(pending);
    await pending.done;
    this.#paceWaits.delete(pending);
  }

  /** Messages held in this account's queues. */
  get queued(): number {
    let total = 0;
    for (const queue of this.#queues.values()) total += queue.size;
    return total;
  }

  /** Messages held per destination channel (a channel appears once something was sent to it). */
  queueDepths(): Map<string, number> {
    return new Map([...this.#queues].map(([channel, queue]) => [channel, queue.size]));
  }

  /** The bridge is stopping: the protocol refuses new inbound work (an HTTP API answers 503) but stays connected. */
  stopAccepting(retryAfterSeconds: number): void {
    this.connection.stopAccepting?.(retryAfterSeconds);
  }

  /**
   * Resolves once every queue of this account is empty. A failed account can never send, so it is not waited for;
   * one that is reconnecting is (it may come back within the stop's grace period).
   */
  async drained(): Promise<void> {
    if (this.supervisor.state === "failed" || this.supervisor.state === "stopped") return;
    await Promise.all([...this.#queues.values()].map((queue) => queue.whenEmpty()));
  }

  /** Drops what the queues still hold, logging the count per destination channel; returns the total. */
  closeQueues(): number {
    let total = 0;
    for (const [channel, queue] of this.#queues) {
      const undelivered = queue.close();
      if (undelivered === 0) continue;
      total += undelivered;
      this.#logger.warn(
        { channel, undelivered },
        `${this.id} ${channel}: ${undelivered} queued message(s) not delivered (stopping${this.#keptIn})`,
      );
    }
    return total;
  }

  /** Closes the queues (see closeQueues) and disconnects; resolves with how many queued messages were dropped. */
  async stop(): Promise<number> {
    const undelivered = this.closeQueues();
    for (const wait of this.#paceWaits) wait.cancel();
    await this.supervisor.stop();
    return undelivered;
  }
}
