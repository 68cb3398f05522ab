// Where and how the account logs in: the server address, the XMPP domain, and the SASL mechanism to use.
import type { SettingsOf } from "../../config/key-spec.ts";
import type { XMPP_KEYS } from "./keys.ts";

export type XmppSettings = SettingsOf<typeof XMPP_KEYS>;

const SERVER = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/@]+)(?::(\d{1,5}))?$/;

const DEFAULT_PORT = 5222;

/** "host:port" (or "host", port 5222); undefined when malformed. IPv6 hosts in brackets. */
export function parseServer(server: string): { host: string; port: number } | undefined {
  const match = SERVER.exec(server.trim());
  if (!match?.[1]) return undefined;
  const port = match[2] === undefined ? DEFAULT_PORT : Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  const host = match[1].startsWith("[") ? match[1].slice(1, -1) : match[1];
  return { host, port };
}

/** The account's local part and XMPP domain: from Jid, or (Anonymous) the host of Server, as Matterbridge does. */
export function loginIdentity(settings: XmppSettings): { username?: string; domain: string } {
  if (settings.Anonymous) return { domain: parseServer(settings.Server)?.host ?? settings.Server };
  const jid = (settings.Jid ?? "").split("/")[0] ?? "";
  const at = jid.lastIndexOf("@");
  return { username: jid.slice(0, at), domain: jid.slice(at + 1) };
}

/**
 * The SASL mechanism among those the server offers (listed in the client library's order of preference, SCRAM first).
 * PLAIN sends the password itself, so on a stream without TLS it is used only when NoTLS says the operator chose an
 * unencrypted link (Matterbridge allows unencrypted auth exactly then); ANONYMOUS only with Anonymous.
 */
export function chooseMechanism(
  offered: readonly string[],
  options: { secure: boolean; noTls: boolean; anonymous: boolean },
): string | undefined {
  if (options.anonymous) return offered.find((mechanism) => mechanism === "ANONYMOUS");
  const usable = offered.filter((mechanism) => mechanism !== "ANONYMOUS");
  if (options.secure || options.noTls) return usable[0];
  return usable.find((mechanism) => mechanism !== "PLAIN");
}
