// An in-memory protocol for the core's tests: a Connection whose connect, join and send outcomes a test scripts,
// registered through the registry API like any protocol, and a harness that runs one or more such accounts with a
// fake clock and captured logs.
import { Writable } from "node:stream";
import { pino } from "pino";
import { PROTOCOLS } from "../src/accounts/registry.ts";
import { Bridge } from "../src/bridge.ts";
import { defineProtocol } from "../src/config/descriptor.ts";
import { key } from "../src/config/key-spec.ts";
import { configFromText } from "../src/config/load.ts";
import type { Delivery, SendResult } from "../src/core/account.ts";
import type { Connection, ConnectionContext, JoinRequest } from "../src/core/connection.ts";
import type { SupervisedAccount } from "../src/core/supervised-account.ts";
import { emptyMessage } from "../src/message.ts";
import { FakeClock, settle } from "./fake-clock.ts";

/** What a scripted connect does: succeed, or throw this error. */
type Outcome = "ok" | Error;

class FakeConnection implements Connection {
  /** connect / join <channel> / disconnect, in order. */
  readonly calls: string[] = [];
  readonly sent: Delivery[] = [];
  /** Outcomes of the next connects; when empty, connect succeeds. */
  readonly connects: Outcome[] = [];
  /** Decides each send; by default it records the delivery and returns `<name>-<n>`. */
  onSend: ((delivery: Delivery) => SendResult) | undefined;
  #count = 0;

  constructor(readonly context: ConnectionContext) {}

  async connect(): Promise<void> {
    this.calls.push("connect");
    const outcome = this.connects.shift() ?? "ok";
    if (outcome !== "ok") throw outcome;
  }

  async join(channel: JoinRequest): Promise<void> {
    this.calls.push(`join ${channel.channel}`);
  }

  send(delivery: Delivery): SendResult {
    if (this.onSend) return this.onSend(delivery);
    this.sent.push(delivery);
    return `${this.context.name}-${++this.#count}`;
  }

  /** Records the delivery and returns the next id; for `onSend` hooks that decide first. */
  accept(delivery: Delivery): string {
    this.sent.push(delivery);
    return `${this.context.name}-${++this.#count}`;
  }

  async disconnect(): Promise<void> {
    this.calls.push("disconnect");
  }

  get texts(): string[] {
    return this.sent.map((d) => d.message.text);
  }
}

export interface FakeRun {
  bridge: Bridge;
  clock: FakeClock;
  logs: { level: number; msg: string; [key: string]: unknown }[];
  connection(name: string): FakeConnection;
  account(name: string): SupervisedAccount;
  /** Injects a message as received by fake.<name> on its channel. */
  receive(name: string, text: string, fields?: Record<string, string>): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A bridge of `fake.<name>` accounts (channel `#<name>` unless `channels` says otherwise, all on gateway "g") with
 * `sections` as extra TOML per account. Connections are created but not started until `start()`.
 */
export function fakeBridge(
  sections: Record<string, string>,
  options: { random?: () => number; channels?: Record<string, string[]> } = {},
): FakeRun {
  const connections = new Map<string, FakeConnection>();
  const fake = defineProtocol({
    name: "fake",
    keys: { Note: key.string() },
    create: (_account, context) => {
      const connection = new FakeConnection(context);
      connections.set(context.name, connection);
      return connection;
    },
  });
  const names = Object.keys(sections);
  const toml = [
    ...names.map((name) => `[fake.${name}]\n${sections[name]}\n`),
    '[[gateway]]\nname = "g"\nenable = true\n',
    ...names.flatMap((name) =>
      (options.channels?.[name] ?? [`#${name}`]).map(
        (channel) => `[[gateway.inout]]\naccount = "fake.${name}"\nchannel = "${channel}"\n`,
      ),
    ),
  ].join("\n");
  const config = configFromText(toml, "fake.toml", { protocols: PROTOCOLS.with(fake), env: {} });
  const logs: FakeRun["logs"] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const clock = new FakeClock();
  const bridge = new Bridge(config, {
    logger: pino({ level: "debug" }, sink),
    tuning: { clock, random: options.random ?? (() => 1) },
  });
  const found = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`no ${what}`);
    return value;
  };
  return {
    bridge,
    clock,
    logs,
    connection: (name) => found(connections.get(name), `connection ${name}`),
    account: (name) => found(bridge.accounts.get(`fake.${name}`), `account ${name}`),
    receive(name, text, fields = {}) {
      const connection = found(connections.get(name), `connection ${name}`);
      connection.context.receive(emptyMessage({ text, channel: `#${name}`, username: "user", ...fields }));
    },
    async start() {
      await bridge.start();
      await settle();
    },
    stop: () => bridge.stop(),
  };
}

/** Log lines whose message contains `text`. */
export function logsWith(run: FakeRun, text: string): FakeRun["logs"] {
  return run.logs.filter((line) => line.msg.includes(text));
}
