// The bridge under load: its real bin with two api accounts (api.in, where clients post; api.out, read by a
// persistent /api/stream, a /api/messages poller and stream clients that come and go), an IRC account on a real
// ngIRCd and an XMPP account on a real Prosody, each with a human in the channel who talks and listens. The IRC and
// XMPP servers are restarted in turn. Every text carries a sequence tag (ledger.ts), so that at the end each message
// the bridge accepted is checked at every destination.
//
// Restarts are clean for the ledger: senders pause and the queues drain first (a line written to a server at the
// instant it dies is the documented IRC/XMPP exception to at-least-once; the soak looks for leaks, not for that),
// then the server goes down and senders resume (their messages queue for the missing server), the server's human
// comes back at once and the bridge after ReconnectDelay, later than the human, so that the human sees the replay
// (reconnectDelayMs below).
import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  connectIrcUser,
  connectXmppUser,
  freePort,
  type IrcUser,
  type ManagedProcess,
  type NgircdServer,
  type ProsodyServer,
  startNgircd,
  startProcess,
  startProsody,
  type Teardown,
  type XmppUser,
} from "@switchboard/testkit";
import { SNAPSHOT_FLAG } from "./heap-snapshot.ts";
import { type Destination, type Endpoint, Ledger } from "./ledger.ts";
import { LogLevels } from "./log-levels.ts";
import { Outcomes } from "./outcomes.ts";
import { Pauser } from "./pauser.ts";

export interface BridgeSoakOptions {
  bin: string;
  dir: string;
  /** The bridge's working directory, where its heap snapshots are written. */
  cwd: string;
  /** Messages per second posted to api.in; the IRC and XMPP humans each say a quarter of that. */
  rate: number;
  /** Between two server restarts (IRC and XMPP alternate). */
  restartMs: number;
  /** How long a restarted server stays down. */
  downMs: number;
  nodeArgs: string[];
}

const CHANNEL = "#soak";
const ROOM = "soak";
const BRIDGE_NICK = "soakbridge";
const DRAIN_TIMEOUT_MS = 60_000;
/** Time enough for a human to reconnect and rejoin once their server is back, on a busy machine. */
const HUMAN_BACK_MS = 5_000;

/**
 * The bridge's ReconnectDelay: its first retry comes after half to all of it (core/backoff.ts), so with twice the
 * downtime plus the human's time the bridge never replays into a channel its human has not rejoined yet (see the
 * header). A shorter one raced the human: retries 1.5-3 s and then 3-6 s after the drop met a server down for 5 s
 * and back, with its human, 1-4 s later.
 */
const reconnectDelayMs = (downMs: number) => 2 * (downMs + HUMAN_BACK_MS);

/** Where a message from `source` must arrive: api.in posts reach api.out too; a human's line the other two. */
const everywhereBut = (source: Endpoint): Destination[] =>
  (["api-stream", "api-poll", "irc", "xmpp"] as const).filter((destination) => destination !== source);

export class BridgeSoak {
  readonly ledger = new Ledger();
  readonly outcomes = new Outcomes();
  /** Held from outside (quiet samples). */
  readonly pauser = new Pauser();
  /** Held by a restart while the queues drain. */
  readonly #restartHold = new Pauser();
  /** Sends that passed the gate and have not finished (a post is recorded only once answered). */
  #sendsUnderWay = 0;
  restarts = { irc: 0, xmpp: 0 };
  /** Account states from the bridge's /health, refreshed every second. */
  #accountUp = new Map<string, boolean>();
  #humanUp = { irc: true, xmpp: true };
  /** The server being restarted: its human must not talk until it and the bridge are back. */
  #restarting: "irc" | "xmpp" | undefined;
  /** Senders stop... */
  #stopped = false;
  /** ...then, once drained, the readers. */
  #finished = false;
  #loops: Promise<void>[] = [];
  readonly #openStreams = new Set<() => void>();

  private constructor(
    readonly process: ManagedProcess,
    readonly apiIn: string,
    readonly apiOut: string,
    readonly statusUrl: string,
    readonly logs: LogLevels,
    readonly ngircd: NgircdServer,
    readonly prosody: ProsodyServer,
    readonly ircHuman: IrcUser,
    readonly xmppHuman: XmppUser,
    readonly options: BridgeSoakOptions,
  ) {}

  static async start(options: BridgeSoakOptions, teardown: Teardown): Promise<BridgeSoak> {
    const password = "soak-password";
    const ngircd = await startNgircd(teardown);
    const prosody = await startProsody(teardown, {
      mucHistory: 0,
      users: [
        { username: BRIDGE_NICK, password },
        { username: "xmpphuman", password },
      ],
    });
    const [inPort, outPort, statusPort] = [await freePort(), await freePort(), await freePort()];
    const config = join(options.dir, "bridge.toml");
    writeFileSync(
      config,
      bridgeConfig({
        inPort,
        outPort,
        statusPort,
        ngircd,
        prosody,
        password,
        stateFile: join(options.dir, "bridge.db"),
        downMs: options.downMs,
      }),
    );
    const ircHuman = await connectIrcUser(teardown, { ...ngircd, nick: "irchuman", channels: [CHANNEL] });
    const xmppHuman = await connectXmppUser(teardown, {
      host: prosody.host,
      port: prosody.port,
      domain: prosody.domain,
      username: "xmpphuman",
      password,
    });
    await xmppHuman.joinRoom(`${ROOM}@${prosody.mucDomain}`, "xmpphuman");
    const bridge = await startProcess(
      {
        name: "bridge",
        command: process.execPath,
        args: [SNAPSHOT_FLAG, ...options.nodeArgs, options.bin, "-conf", config],
        cwd: options.cwd,
        env: { ...process.env, SWITCHBOARD_TTY: "0" },
        ready: { line: "bridge started" },
        timeoutMs: 60_000,
      },
      teardown,
    );
    const soak = new BridgeSoak(
      bridge,
      `http://127.0.0.1:${inPort}`,
      `http://127.0.0.1:${outPort}`,
      `http://127.0.0.1:${statusPort}`,
      new LogLevels(bridge),
      ngircd,
      prosody,
      ircHuman,
      xmppHuman,
      options,
    );
    soak.#listen();
    await soak.#refreshHealth();
    return soak;
  }

  /** The humans and the api readers feed every tagged text they see to the ledger. */
  #listen(): void {
    this.ircHuman.client.on("privmsg", (event: { target: string; nick: string; message: string }) => {
      if (event.target === CHANNEL && event.nick === BRIDGE_NICK) this.ledger.arrived("irc", event.message);
    });
    this.xmppHuman.xmpp.on("stanza", (stanza) => {
      if (!stanza.is("message") || stanza.attrs.type !== "groupchat") return;
      if (!String(stanza.attrs.from ?? "").endsWith(`/${BRIDGE_NICK}`)) return;
      if (stanza.getChild("delay", "urn:xmpp:delay") !== undefined) return; // history replay, not a delivery
      const body = stanza.getChild("body")?.text();
      if (body !== undefined) this.ledger.arrived("xmpp", body);
    });
  }

  startLoad(): void {
    this.#loops.push(
      this.#streamReader(),
      this.#poller(),
      this.#streamChurn(),
      this.#healthLoop(),
      this.#apiPoster(),
      this.#humanLoop("irc"),
      this.#humanLoop("xmpp"),
      this.#restartLoop(),
    );
  }

  /** Stops the load, then waits (bounded) until every accepted message has arrived everywhere. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.pauser.resume();
    this.#restartHold.resume();
    await this.drain();
    this.#finished = true;
    for (const hangUp of this.#openStreams) hangUp();
    await Promise.all(this.#loops);
  }

  /** Waits until no delivery is missing, or DRAIN_TIMEOUT_MS; true when drained. */
  async drain(): Promise<boolean> {
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    while (this.ledger.missing() > 0 && Date.now() < deadline) await sleep(200);
    return this.ledger.missing() === 0;
  }

  /** Quiet: no server restart under way, every account and human connected. */
  get settled(): boolean {
    return this.#restarting === undefined && this.allConnected;
  }

  /** Waits (bounded) until settled, asking the bridge's /health itself (its loop ends with the soak). */
  async waitSettled(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.#refreshHealth();
      if (this.settled || Date.now() > deadline) return this.settled;
      await sleep(250);
    }
  }

  /** Runs one send, counted from the gate (no await in between) to its end. */
  async #send<T>(send: () => Promise<T>): Promise<T> {
    this.#sendsUnderWay++;
    try {
      return await send();
    } finally {
      this.#sendsUnderWay--;
    }
  }

  /**
   * Waits (bounded) until the sends that passed the gate before it closed have finished: a restart's drain must see
   * them, or one of them reaches the server the restart is stopping (CI lost such lines).
   */
  async #sendsFinished(): Promise<void> {
    await sleep(0); // senders whose gate opened just before the pause go through it and are counted
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    while (this.#sendsUnderWay > 0 && Date.now() < deadline) await sleep(50);
  }

  async #sendersMayGo(): Promise<void> {
    await this.pauser.wait();
    await this.#restartHold.wait();
  }

  get allConnected(): boolean {
    return [...this.#accountUp.values()].every(Boolean) && this.#humanUp.irc && this.#humanUp.xmpp;
  }

  async #refreshHealth(): Promise<void> {
    try {
      const answer = await fetch(`${this.statusUrl}/health`, { signal: AbortSignal.timeout(5_000) });
      const body = (await answer.json()) as { accounts: { account: string; state: string }[] };
      for (const account of body.accounts) this.#accountUp.set(account.account, account.state === "connected");
    } catch {
      // The next refresh will tell; the status endpoint's own failures show as failed scrapes.
    }
  }

  async #healthLoop(): Promise<void> {
    while (!this.#finished) {
      await this.#refreshHealth();
      await sleep(1_000);
    }
  }

  async #apiPoster(): Promise<void> {
    const intervalMs = 1_000 / this.options.rate;
    while (!this.#stopped) {
      await this.#sendersMayGo();
      if (this.#stopped) return;
      const { tag, text } = this.ledger.text("api");
      await this.#send(() =>
        this.outcomes.track("api-post", async () => {
          const answer = await fetch(`${this.apiIn}/api/message`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ text, username: "poster", gateway: "soak" }),
          });
          await answer.text();
          if (answer.status !== 200) return { unexpected: `POST /api/message answered ${answer.status}` };
          this.ledger.accepted(tag, everywhereBut("api"));
          return {};
        }),
      );
      await sleep(intervalMs);
    }
  }

  /** A human says something when they, and the bridge's account on their server, are connected. */
  async #humanLoop(source: "irc" | "xmpp"): Promise<void> {
    const intervalMs = 4_000 / this.options.rate;
    while (!this.#stopped) {
      await sleep(intervalMs);
      await this.#sendersMayGo();
      const account = `${source}.soak`;
      if (this.#stopped || this.#restarting === source || !this.#humanUp[source]) continue;
      if (this.#accountUp.get(account) !== true) continue;
      const { tag, text } = this.ledger.text(source);
      // Recorded before sending: the arrival can come back before the send resolves.
      this.ledger.accepted(tag, everywhereBut(source));
      if (source === "irc") this.ircHuman.say(CHANNEL, text);
      else await this.#send(() => this.xmppHuman.say(`${ROOM}@${this.prosody.mucDomain}`, text));
    }
  }

  async #restartLoop(): Promise<void> {
    for (let turn = 0; ; turn++) {
      const until = Date.now() + this.options.restartMs;
      while (!this.#stopped && Date.now() < until) await sleep(250);
      if (this.#stopped) return;
      await this.pauser.wait();
      await this.#restart(turn % 2 === 0 ? "irc" : "xmpp");
    }
  }

  async #restart(which: "irc" | "xmpp"): Promise<void> {
    this.#restarting = which;
    this.#restartHold.pause();
    await this.#sendsFinished();
    await this.drain();
    const server = which === "irc" ? this.ngircd : this.prosody;
    this.#humanUp[which] = false;
    await server.restart(async () => {
      // Senders resume once the bridge has seen the server go (their messages queue for it meanwhile).
      await sleep(1_000);
      this.#restartHold.resume();
      await sleep(Math.max(0, this.options.downMs - 1_000));
    });
    await this.outcomes.track(`${which}-human-reconnect`, async () => {
      if (which === "irc") await this.ircHuman.reconnect();
      else await this.xmppHuman.reconnect();
      return {};
    });
    this.#humanUp[which] = true;
    this.restarts[which]++;
    // The human talks again once the bridge's account is back (the human loop checks /health).
    this.#restarting = undefined;
  }

  /** The persistent /api/stream reader (reopened if it ends). */
  async #streamReader(): Promise<void> {
    while (!this.#finished) {
      await this.outcomes.track("api-stream", async () => {
        const ended = await this.#readStream(Number.POSITIVE_INFINITY, (text) =>
          this.ledger.arrived("api-stream", text),
        );
        return ended && !this.#finished ? { unexpected: "the /api/stream ended" } : {};
      });
    }
  }

  /** Stream clients that come and go: each reads for 1-4 s, then hangs up. */
  async #streamChurn(): Promise<void> {
    while (!this.#stopped) {
      await sleep(3_000);
      await this.outcomes.track("api-stream-churn", async () => {
        await this.#readStream(1_000 + Math.random() * 3_000, () => {});
        return {};
      });
    }
  }

  /** Reads /api/stream lines until `forMs` passed or the soak finished (resolves false) or the stream ended (true). */
  #readStream(forMs: number, onText: (text: string) => void): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const req = request(`${this.apiOut}/api/stream`, { agent: false }, (response) => {
        let pending = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          pending += chunk;
          const lines = pending.split("\n");
          pending = lines.pop() ?? "";
          for (const line of lines) if (line !== "") onText((JSON.parse(line) as { text: string }).text);
        });
        response.on("end", () => resolve(true));
        response.on("error", () => resolve(true));
      });
      const hangUp = () => {
        req.destroy();
        resolve(false);
      };
      req.on("error", (error) => (this.#finished ? resolve(false) : reject(error)));
      req.end();
      this.#openStreams.add(hangUp);
      const timer = Number.isFinite(forMs) ? setTimeout(hangUp, forMs) : undefined;
      req.on("close", () => {
        clearTimeout(timer);
        this.#openStreams.delete(hangUp);
      });
    });
  }

  /** Reads /api/messages every second until the soak has finished. */
  async #poller(): Promise<void> {
    while (!this.#finished) {
      await this.outcomes.track("api-poll", async () => {
        const answer = await fetch(`${this.apiOut}/api/messages`);
        const body = await answer.text();
        if (answer.status !== 200) return { unexpected: `GET /api/messages answered ${answer.status}` };
        for (const message of JSON.parse(body) as { text: string }[]) this.ledger.arrived("api-poll", message.text);
        return {};
      });
      await sleep(1_000);
    }
  }
}

interface ConfigInput {
  inPort: number;
  outPort: number;
  statusPort: number;
  ngircd: NgircdServer;
  prosody: ProsodyServer;
  password: string;
  stateFile: string;
  downMs: number;
}

function bridgeConfig(c: ConfigInput): string {
  const delay = reconnectDelayMs(c.downMs);
  const queue = `MessageQueue = 100000\nReconnectDelay = ${delay}\nReconnectMaxDelay = ${2 * delay}`;
  return `[general]
RemoteNickFormat = "{NICK}: "
StatusAddress = "127.0.0.1:${c.statusPort}"
StateFile = "${c.stateFile}"
[api.in]
BindAddress = "127.0.0.1:${c.inPort}"
Buffer = 10
[api.out]
BindAddress = "127.0.0.1:${c.outPort}"
Buffer = 100000
[irc.soak]
Server = "127.0.0.1:${c.ngircd.port}"
Nick = "${BRIDGE_NICK}"
MessageDelay = 0
${queue}
[xmpp.soak]
Server = "127.0.0.1:${c.prosody.port}"
Jid = "${BRIDGE_NICK}@${c.prosody.domain}"
Password = "${c.password}"
Muc = "${c.prosody.mucDomain}"
Nick = "${BRIDGE_NICK}"
NoTLS = true
${queue}
[[gateway]]
name = "soak"
enable = true
  [[gateway.in]]
  account = "api.in"
  channel = "api"
  [[gateway.inout]]
  account = "irc.soak"
  channel = "${CHANNEL}"
  [[gateway.inout]]
  account = "xmpp.soak"
  channel = "${ROOM}"
  [[gateway.out]]
  account = "api.out"
  channel = "api"
`;
}
