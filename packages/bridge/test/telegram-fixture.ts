// What the telegram account's tests share: a Telegram simulator with a bot, a human and a group; a bridge joining
// that group with an api account and a scripted account (a protocol defined here whose messages carry ids, so edits,
// deletes and replies from elsewhere can be driven through the core's id cache); and a stream on the api account.
import {
  type SimulatedBot,
  startTelegramSimulator,
  type TelegramSimulator,
  type TelegramUser,
  waitUntil,
} from "@switchboard/testkit";
import { PROTOCOLS } from "../src/accounts/registry.ts";
import { defineProtocol } from "../src/config/descriptor.ts";
import type { Delivery } from "../src/core/account.ts";
import type { Connection, ConnectionContext } from "../src/core/connection.ts";
import type { SupervisedAccount } from "../src/core/supervised-account.ts";
import { emptyMessage, type Message } from "../src/message.ts";
import { openStream, type RunningBridge, type StreamClient, startBridge, type Teardown } from "./helpers.ts";

/** An account whose "platform" is the test: `say` hands a message (with an id) to the core; deliveries are kept. */
class ScriptedConnection implements Connection {
  readonly delivered: Delivery[] = [];
  #count = 0;
  constructor(readonly context: ConnectionContext) {}
  async connect(): Promise<void> {}
  async join(): Promise<void> {}
  /** The id this account gave each delivery (what a user of this platform would refer to). */
  readonly ids = new Map<Delivery, string>();
  send(delivery: Delivery): string {
    this.delivered.push(delivery);
    const id = delivery.message.id || `scripted-${++this.#count}`;
    this.ids.set(delivery, id);
    return id;
  }
  async disconnect(): Promise<void> {}
  say(fields: Partial<Message>): void {
    this.context.receive(emptyMessage({ channel: "room", username: "carol", ...fields }));
  }
  waitForDelivery(matches: (delivery: Delivery) => boolean, what: string): Promise<Delivery> {
    return waitUntil(() => this.delivered.find(matches), { timeoutMs: 10_000, what });
  }
}

const scriptedProtocol = defineProtocol({
  name: "scripted",
  keys: {},
  create: (_account, context) => new ScriptedConnection(context),
});

export interface TelegramRun {
  tg: TelegramSimulator;
  bot: SimulatedBot;
  alice: TelegramUser;
  chat: number;
  bridge: RunningBridge;
  account: SupervisedAccount;
  scripted: ScriptedConnection;
  /** What the api account receives. */
  api: StreamClient;
  apiUrl: string;
  waitForApi(matches: (message: Message) => boolean, what: string): Promise<Message>;
}

export interface RunOptions {
  /** Extra lines in [telegram.tg]. */
  telegram?: string;
  /** The telegram channel; default: the group's id. */
  channel?: (chat: number, run: { tg: TelegramSimulator; alice: TelegramUser }) => string;
  forum?: boolean;
  /** The telegram account's RemoteNickFormat; default "<{NICK}> ". */
  nickFormat?: string;
}

export async function startTelegramRun(teardown: Teardown, options: RunOptions = {}): Promise<TelegramRun> {
  const tg = await startTelegramSimulator(teardown, { log: () => {} });
  const bot = tg.createBot({ username: "relay_bot", firstName: "Relay" });
  const alice = tg.createUser({ first_name: "Alice", last_name: "Liddell", username: "alice" });
  const chat = tg.createChat({ title: "Lobby", forum: options.forum ?? false, members: [bot, alice] });
  const channel = options.channel?.(chat, { tg, alice }) ?? String(chat);
  const toml = `
[telegram.tg]
Token = "${bot.token}"
ApiURL = "${tg.apiRoot}"
RemoteNickFormat = ${JSON.stringify(options.nickFormat ?? "<{NICK}> ")}
ReconnectDelay = 50
ReconnectMaxDelay = 300
${options.telegram ?? ""}

[api.local]
BindAddress = "127.0.0.1:0"
Buffer = 100

[scripted.src]
PreserveThreading = true

[[gateway]]
name = "g"
enable = true
  [[gateway.inout]]
  account = "telegram.tg"
  channel = "${channel}"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
  [[gateway.inout]]
  account = "scripted.src"
  channel = "room"
`;
  const bridge = await startBridge(toml, teardown, { protocols: PROTOCOLS.with(scriptedProtocol) });
  const account = bridge.bridge.accounts.get("telegram.tg");
  const scripted = bridge.bridge.accounts.get("scripted.src")?.connection;
  if (account === undefined || !(scripted instanceof ScriptedConnection)) throw new Error("accounts missing");
  const apiUrl = bridge.url("api.local");
  const api = await openStream(apiUrl);
  teardown.after(() => api.close());
  return {
    tg,
    bot,
    alice,
    chat,
    bridge,
    account,
    scripted,
    api,
    apiUrl,
    waitForApi: (matches, what) =>
      waitUntil(() => api.items.find((m) => m.event !== "api_connected" && matches(m)), { timeoutMs: 10_000, what }),
  };
}
