// The router: a message received by an account goes to every other channel of its gateways that the directions
// allow, never back to its own channel, each destination getting its own copy.
import type { Logger } from "pino";
import type { BridgeConfig, ChannelConfig } from "../config/types.ts";
import { Events, type Message, PARENT_NOT_FOUND } from "../message.ts";
import { timestampNow } from "../timestamp.ts";
import type { Account, Delivery, MessageSink, RouteResult } from "./account.ts";
import { cleanNick } from "./clean-nick.ts";
import { filesOf, withFiles } from "./files/file-info.ts";
import type { FileRelay, PreparedFiles } from "./files/file-relay.ts";
import { destinationAccepts, destinationNick, INTERNAL_EVENTS, isIgnored, rewriteAtSource } from "./filters.ts";
import { type CopyId, cacheKey, MessageIdCache } from "./id-cache.ts";
import { formatNick } from "./nick-format.ts";
import { type RelayObserver, UNOBSERVED } from "./observer.ts";
import { type AccountRules, compileRules } from "./rules.ts";
import { NO_STATE, type StateStore, type StoredDelivery } from "./state-store.ts";

interface Endpoint {
  config: ChannelConfig;
  account: Account;
  rules: AccountRules;
  receives: boolean;
  sends: boolean;
}

interface RoutedGateway {
  name: string;
  endpoints: Endpoint[];
  cache: MessageIdCache;
}

export interface RouterOptions {
  logger: Logger;
  debug?: boolean;
  idCacheSize?: number;
  /** Told of each message routed in a gateway (metrics). */
  observer?: RelayObserver;
  /** Where the id map and the queued messages are kept across restarts (none by default). */
  state?: StateStore;
  /** Fetches the files of received messages for their destinations (none: files are relayed as links). */
  files?: FileRelay;
}

/** A destination channel of a gateway, as the replay of queued messages (core/queue-replay.ts) needs it. */
export interface Destination {
  account: Account;
  options: Readonly<Record<string, unknown>>;
  cache: MessageIdCache;
}

export class Router implements MessageSink {
  readonly #gateways: RoutedGateway[] = [];
  /** For each source account: the gateways it is on. */
  readonly #gatewaysOf = new Map<string, RoutedGateway[]>();
  readonly #rules = new Map<string, AccountRules>();
  readonly #logger: Logger;
  readonly #debug: boolean;
  readonly #observer: RelayObserver;
  readonly #state: StateStore;
  readonly #files: FileRelay | undefined;

  constructor(config: BridgeConfig, accounts: ReadonlyMap<string, Account>, options: RouterOptions) {
    this.#logger = options.logger;
    this.#debug = options.debug ?? false;
    this.#observer = options.observer ?? UNOBSERVED;
    this.#state = options.state ?? NO_STATE;
    this.#files = options.files;
    for (const [id, account] of config.accounts) this.#rules.set(id, compileRules(account.settings));
    for (const gateway of config.gateways) {
      const routed: RoutedGateway = {
        name: gateway.name,
        endpoints: [],
        cache: new MessageIdCache(options.idCacheSize),
      };
      for (const [key, copies] of this.#state.loadCopies(gateway.name, routed.cache.capacity)) {
        routed.cache.set(key, copies);
      }
      for (const channel of gateway.channels) {
        const account = accounts.get(channel.account);
        const rules = this.#rules.get(channel.account);
        if (!account || !rules) throw new Error(`router: account ${channel.account} was not created`);
        routed.endpoints.push({
          config: channel,
          account,
          rules,
          // `in`: messages come from the platform into the gateway; `out`: the gateway sends to the platform.
          receives: channel.direction !== "out",
          sends: channel.direction !== "in",
        });
        const list = this.#gatewaysOf.get(channel.account) ?? [];
        if (!list.includes(routed)) list.push(routed);
        this.#gatewaysOf.set(channel.account, list);
      }
      this.#gateways.push(routed);
    }
  }

  receive(source: Account, message: Message): RouteResult {
    const rules = this.#rules.get(source.id);
    if (!rules) return { deliveries: 0, dropped: "no-route" };
    if (INTERNAL_EVENTS.has(message.event)) {
      if (this.#debug) this.#logger.debug({ account: source.id, event: message.event }, "internal event not routed");
      return { deliveries: 0, dropped: "internal-event" };
    }
    message.account = source.id;
    message.protocol = source.protocol;
    if (message.timestamp === "") message.timestamp = timestampNow();
    if (isIgnored(message, rules.source)) {
      if (this.#debug) this.#logger.debug({ account: source.id, username: message.username }, "message ignored");
      return { deliveries: 0, dropped: "ignored" };
    }
    rewriteAtSource(message, rules.source);
    // Once, for every protocol: a nick is never a way to put a line break or a control character on another
    // platform; a platform that gave no name shows its user's id rather than an empty nick.
    message.username = cleanNick(message.username);
    if (message.username === "") message.username = cleanNick(message.userid);

    // A source may address one gateway (the api account: the client names it); otherwise every gateway counts.
    const onlyGateway = message.gateway === "" ? undefined : message.gateway;
    // One transaction for all the copies of a message: they are all kept, or (a crash before the commit, so before
    // the sender was answered) none.
    // The files are fetched once for all the gateways and destinations, when the first one needs them.
    const files = new MessageFiles(this.#files, source, message);
    const deliveries = this.#state.atomically(() => {
      let count = 0;
      for (const gateway of this.#gatewaysOf.get(source.id) ?? []) {
        if (onlyGateway !== undefined && gateway.name !== onlyGateway) continue;
        count += this.#routeInGateway(gateway, source, message, rules, files);
      }
      return count;
    });
    files.release();
    if (this.#debug) {
      this.#logger.debug({ account: source.id, gateway: onlyGateway, deliveries }, "message routed");
    }
    return deliveries > 0 ? { deliveries } : { deliveries, dropped: "no-route" };
  }

  #routeInGateway(
    gateway: RoutedGateway,
    source: Account,
    message: Message,
    rules: AccountRules,
    files: MessageFiles,
  ): number {
    const from = gateway.endpoints.find((e) => e.account === source && e.config.channel === message.channel);
    if (!from?.receives) return 0;
    this.#observer.received(source.id, gateway.name);
    const key = message.id === "" ? undefined : cacheKey(source.id, message.id);
    const known = key === undefined ? undefined : gateway.cache.get(key);
    const parentKey = message.parent_id === "" ? undefined : gateway.cache.canonical(source.id, message.parent_id);
    const copies: CopyId[] = [];
    let deliveries = 0;

    for (const to of gateway.endpoints) {
      if (to === from || !to.sends) continue;
      // Never back to the channel the message came from.
      if (to.account === source && to.config.channel === message.channel) continue;
      if (from.config.sameChannel && (to.account === source || to.config.channel !== message.channel)) continue;
      const destination = to.rules.destination;
      if (!destinationAccepts(message.event, destination, to.account.capabilities)) continue;
      const original = known?.find((c) => c.account === to.account.id && c.channel === to.config.channel);
      const isDelete = message.event === Events.msgDelete;
      if (isDelete && (original === undefined || (original.id === "" && original.pending === undefined))) continue;

      const parent = this.#parentFor(message.parent_id, parentKey, gateway, to, destination.preserveThreading);
      const copy: Message = {
        ...message,
        gateway: gateway.name,
        username: formatNick(destination.nickFormat, {
          NICK: destinationNick(message.username, rules.source, destination),
          PROTOCOL: source.protocol,
          BRIDGE: source.name,
          GATEWAY: gateway.name,
          LABEL: rules.source.label,
          CHANNEL: message.channel,
          USERID: cleanNick(message.userid),
        }),
        id: original?.id ?? "",
        parent_id: typeof parent === "string" ? parent : "",
      };
      // An edit carries its new text only: the files stay as the first message relayed them.
      if (known !== undefined && copy.Extra !== null) copy.Extra = withFiles(copy.Extra, []);
      const prepared = known === undefined ? files.prepared() : undefined;
      // An edit, delete or reply whose original is still on its way waits in the queue for the original's id
      // rather than going out as a new message (both are in the same destination queue, so it is not long).
      const waits: Promise<void>[] = [];
      if (original?.pending !== undefined) {
        waits.push(
          original.pending.then((id) => {
            copy.id = id;
          }),
        );
      }
      if (typeof parent !== "string") {
        waits.push(
          parent.then((id) => {
            copy.parent_id = id;
          }),
        );
      }
      const ready = waits.length === 0 ? undefined : Promise.all(waits).then(() => !(isDelete && copy.id === ""));
      const delivery: Delivery = {
        message: copy,
        channel: to.config.channel,
        gateway: gateway.name,
        options: to.config.options,
      };
      if (prepared !== undefined) delivery.files = prepared;
      deliveries++;
      prepared?.hold();
      const result = this.#send(to.account, delivery, ready);
      if (prepared !== undefined) {
        if (typeof result === "string") prepared.release();
        else result.then(() => prepared.release());
      }
      if (typeof result === "string") {
        if (result !== "") copies.push({ account: to.account.id, channel: to.config.channel, id: result });
      } else {
        const entry: CopyId = { account: to.account.id, channel: to.config.channel, id: "", pending: result };
        // Held by the queue (or sent asynchronously): kept in the state file until the destination confirms it.
        this.#keep(result, entry, gateway.cache, {
          account: to.account.id,
          channel: to.config.channel,
          gateway: gateway.name,
          message: copy,
          copyOf: known === undefined ? key : undefined,
          editOf: original?.pending !== undefined ? key : undefined,
          replyTo: typeof parent === "string" ? undefined : parentKey,
        });
        copies.push(entry);
      }
    }
    if (key !== undefined && known === undefined) {
      // A copy sized to the copies: the array pushed into keeps room for 17 for as long as the cache holds it.
      gateway.cache.set(key, copies.slice());
      if (copies.length > 0) {
        this.#state.saveCopies(
          gateway.name,
          key,
          copies.map((c) => ({ account: c.account, channel: c.channel, id: c.id })),
        );
      }
    }
    return deliveries;
  }

  /**
   * Writes a held message to the state file. Once its destination settled it (sent, or given up), its copy's id is
   * known in the id cache and it leaves the file: one reaction to the send for both.
   */
  #keep(result: Promise<string>, entry: CopyId, cache: MessageIdCache, delivery: StoredDelivery): void {
    const seq = this.#state.enqueue(delivery);
    const { copyOf, gateway, account, channel } = delivery;
    result.then((id) => {
      cache.confirm(copyOf, entry, id);
      this.#state.settle(seq, copyOf === undefined ? undefined : { gateway, key: copyOf, account, channel, id });
    });
  }

  /** The destination channel `channel` of `account` in `gateway`, when the config still has it. */
  destination(gateway: string, account: string, channel: string): Destination | undefined {
    const routed = this.#gateways.find((g) => g.name === gateway);
    const to = routed?.endpoints.find((e) => e.account.id === account && e.config.channel === channel && e.sends);
    if (routed === undefined || to === undefined) return undefined;
    return { account: to.account, options: to.config.options, cache: routed.cache };
  }

  /**
   * A destination's parent id: its own copy of the parent (a promise while that copy is being sent), the parent
   * itself if it was posted there, or not-found.
   */
  #parentFor(
    parent: string,
    parentKey: string | undefined,
    gateway: RoutedGateway,
    to: Endpoint,
    preserve: boolean,
  ): string | Promise<string> {
    if (parent === "") return "";
    if (!preserve || parentKey === undefined) return PARENT_NOT_FOUND;
    // The destination channel's own copy first: when the parent was posted on another channel of the same account,
    // that channel's id of it would point to the wrong channel.
    const copy = gateway.cache
      .get(parentKey)
      ?.find((c) => c.account === to.account.id && c.channel === to.config.channel);
    if (copy?.pending !== undefined) return copy.pending.then((id) => (id === "" ? PARENT_NOT_FOUND : id));
    if (copy?.id) return copy.id;
    const prefix = `${to.account.id} `;
    if (parentKey.startsWith(prefix)) return parentKey.slice(prefix.length);
    return PARENT_NOT_FOUND;
  }

  /** A failing destination never stops the others. */
  #send(account: Account, delivery: Delivery, ready: Promise<boolean> | undefined): string | Promise<string> {
    try {
      const result = account.send(delivery, ready);
      if (typeof result === "string") return result;
      return result.catch((error: unknown) => {
        this.#logger.error({ account: account.id, err: error }, "send failed");
        return "";
      });
    } catch (error) {
      this.#logger.error({ account: account.id, err: error }, "send failed");
      return "";
    }
  }
}

/** A received message's files, fetched at most once, when a destination first asks for them. */
class MessageFiles {
  readonly #relay: FileRelay | undefined;
  readonly #source: Account;
  readonly #message: Message;
  #prepared: PreparedFiles | undefined;
  #asked = false;

  constructor(relay: FileRelay | undefined, source: Account, message: Message) {
    this.#relay = relay;
    this.#source = source;
    this.#message = message;
  }

  /** The files being fetched; undefined when the message has none (or nothing fetches files). */
  prepared(): PreparedFiles | undefined {
    if (!this.#asked) {
      this.#asked = true;
      const relay = this.#relay;
      const list = relay === undefined || this.#message.event === Events.msgDelete ? [] : filesOf(this.#message);
      if (relay !== undefined && list.length > 0) this.#prepared = relay.prepare(this.#source, list);
    }
    return this.#prepared;
  }

  /** The router's own hold: released once every destination got its own. */
  release(): void {
    this.#prepared?.release();
  }
}
