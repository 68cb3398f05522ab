// STARTTLS under the account's control. @xmpp/client upgrades on its own whenever the server offers STARTTLS, but it
// can neither be told not to (NoTLS) nor to accept an unverifiable certificate (SkipTLSVerify), and it goes on to log
// in over plain TCP when the server offers no STARTTLS at all. So the stream features are looked at first, before
// the library's handlers see them:
// - NoTLS: the STARTTLS offer is removed, the library logs in on the plain stream;
// - otherwise: STARTTLS is negotiated here (with the configured certificate check) and the library only sees the
//   features of the encrypted stream; a server that offers no STARTTLS is refused, as a login on plain TCP would
//   expose the password and everything the bridge relays.
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import tls, { type TLSSocket } from "node:tls";
import { thrownMessage } from "@switchboard/common";
import type { Client } from "@xmpp/client";
import xml, { type Element } from "@xmpp/xml";

const NS_STREAMS = "http://etherx.jabber.org/streams";
const NS_TLS = "urn:ietf:params:xml:ns:xmpp-tls";

export interface StartTlsOptions {
  noTls: boolean;
  skipVerify: boolean;
  /** The XMPP domain: the name the certificate must carry. */
  domain: string;
  /** A login that must not go on (no STARTTLS offered, negotiation failed). */
  fail(error: Error): void;
}

/** Installs the policy on a client before `start()`. */
export function controlStartTls(xmpp: Client, options: StartTlsOptions): void {
  xmpp.prependListener("element", (features: Element) => {
    if (!features.is("features", NS_STREAMS) || xmpp.isSecure()) return;
    const offer = features.getChild("starttls", NS_TLS);
    if (options.noTls) {
      if (offer) features.remove(offer);
      return;
    }
    // Nothing of this plain-text stream is for the library: it would log in on it.
    features.children = [];
    if (!offer) {
      options.fail(
        new Error("the server offers no STARTTLS: set NoTLS = true to connect without encryption, or enable TLS on it"),
      );
      return;
    }
    upgrade(xmpp, options).catch((error: unknown) =>
      options.fail(new Error(`STARTTLS failed: ${thrownMessage(error)}`)),
    );
  });
}

async function upgrade(xmpp: Client, options: StartTlsOptions): Promise<void> {
  const reply = await xmpp.sendReceive(xml("starttls", { xmlns: NS_TLS }));
  if (!reply.is("proceed", NS_TLS)) throw new Error("the server refused it");
  const plain = xmpp.socket as unknown as Socket;
  const secure = new SecureSocket();
  secure.wrap(
    tls.connect({
      socket: plain,
      servername: options.domain,
      host: options.domain,
      rejectUnauthorized: !options.skipVerify,
    }),
  );
  await new Promise<void>((resolve, reject) => {
    secure.once("connect", resolve);
    secure.once("error", reject);
  });
  // The library's own STARTTLS does exactly this with its TLS socket wrapper.
  (xmpp as unknown as { _attachSocket(socket: SecureSocket): void })._attachSocket(secure);
  await xmpp.restart();
}

/** The socket interface @xmpp/connection expects (what @xmpp/tls's Socket provides), over a TLS socket. */
class SecureSocket extends EventEmitter {
  readonly secure = true;
  #socket: TLSSocket | undefined;

  wrap(socket: TLSSocket): void {
    this.#socket = socket;
    socket.on("secureConnect", () => this.emit("connect"));
    socket.on("data", (data: Buffer) => this.emit("data", data));
    socket.on("error", (error: Error) => this.emit("error", error));
    socket.on("close", (hadError: boolean) => this.emit("close", hadError));
  }

  write(data: string, done?: (error?: Error | null) => void): void {
    this.#socket?.write(data, done);
  }

  end(): void {
    this.#socket?.end();
  }

  destroy(): void {
    this.#socket?.destroy();
  }
}
