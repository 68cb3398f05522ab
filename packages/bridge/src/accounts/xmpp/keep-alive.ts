// Noticing a dead link: a TCP connection whose peer vanished (server host down, NAT entry expired) can stay "open"
// for a long time. Every interval the account pings its server (XEP-0199); no answer within the timeout means the
// link is dead. An error answer still proves the link alive. Matterbridge pings every 90 s but ignores failures.
import type { Client } from "@xmpp/client";
import xml from "@xmpp/xml";

const NS_PING = "urn:xmpp:ping";

export interface KeepAliveOptions {
  intervalMs: number;
  timeoutMs: number;
  /** The link is dead: called once. */
  dead(reason: string): void;
}

/** Starts pinging; returns the function that stops it. */
export function keepAlive(xmpp: Client, options: KeepAliveOptions): () => void {
  let stopped = false;
  let inFlight = false;
  const timer = setInterval(() => {
    if (inFlight || stopped) return;
    inFlight = true;
    const ping = xml("iq", { type: "get", to: xmpp.jid?.domain }, xml("ping", { xmlns: NS_PING }));
    xmpp.iqCaller.request(ping, options.timeoutMs).then(
      () => {
        inFlight = false;
      },
      (error: unknown) => {
        inFlight = false;
        if (stopped || !(error instanceof Error) || error.name !== "TimeoutError") return;
        stopped = true;
        clearInterval(timer);
        options.dead(`no answer to a ping within ${options.timeoutMs} ms`);
      },
    );
  }, options.intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
