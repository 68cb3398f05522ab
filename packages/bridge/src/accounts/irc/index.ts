// The `irc` protocol: an IRC client on irc-framework that joins its gateway channels (irc-connection.ts).
import { isIP } from "node:net";
import { defineProtocol } from "../../config/descriptor.ts";
import { lazyConnection } from "../lazy-connection.ts";
import { isKnownCharset } from "./charset.ts";
import { parseGoDuration } from "./duration.ts";
import { IRC_KEYS } from "./keys.ts";
import { utf8Length } from "./split.ts";
import { isTwitch } from "./twitch.ts";

const SERVER = /^(\[[0-9a-fA-F:.]+\]|[^:\s[\]]+):(\d{1,5})$/;

export const ircProtocol = defineProtocol({
  name: "irc",
  keys: IRC_KEYS,
  // Matterbridge's IRC flood control: 1.3 s between lines, 30 lines held.
  defaults: { MessageDelay: 1300, MessageQueue: 30 },
  // Channel notices from one IRC channel are sent as notices to the others (other platforms have no such thing).
  capabilities: { notices: true },
  unsupportedKeys: ["UseRelayMsg", "DebugLevel"],
  validate(settings) {
    const problems: string[] = [];
    const server = SERVER.exec(settings.Server.trim());
    if (server === null || Number(server[2]) < 1 || Number(server[2]) > 65535) {
      problems.push(
        `Server must be <host>:<port>, e.g. "irc.libera.chat:6697" (got ${JSON.stringify(settings.Server)})`,
      );
    }
    if (!/^[^\s:#,*?!@][^\s,*?!@]*$/.test(settings.Nick)) {
      problems.push(`Nick ${JSON.stringify(settings.Nick)} is not a valid IRC nick (no spaces, and no : # , * ? ! @)`);
    }
    if (settings.Charset !== "" && !isKnownCharset(settings.Charset)) {
      problems.push(
        `Charset ${JSON.stringify(settings.Charset)} is unknown; use e.g. "iso-8859-1", "koi8-r" or leave it empty`,
      );
    }
    if (parseGoDuration(settings.PingDelay) === undefined) {
      problems.push(`PingDelay must be a duration such as "30s" or "1m" (got ${JSON.stringify(settings.PingDelay)})`);
    }
    if (settings.TLSClientCertificate !== "" && !settings.UseTLS) {
      problems.push("TLSClientCertificate needs UseTLS = true: the certificate is presented in the TLS handshake");
    }
    if (settings.TLSClientCertificate !== "" && settings.UseSASL) {
      problems.push(
        "TLSClientCertificate and UseSASL cannot both be set (as in Matterbridge): the certificate identifies the " +
          "bot (CertFP), SASL identifies it with NickServPassword; keep one",
      );
    }
    if (settings.Bind !== "" && isIP(settings.Bind) === 0) {
      problems.push(
        `Bind must be an IP address of this machine, e.g. "192.0.2.10" (got ${JSON.stringify(settings.Bind)})`,
      );
    }
    if (settings.UseSASL && !settings.NickServPassword) {
      problems.push("UseSASL needs NickServPassword (and NickServNick, the account name; the Nick when empty)");
    }
    if (!settings.MessageSplit && utf8Length(settings.MessageClipped) >= settings.MessageLength) {
      problems.push("MessageClipped must be shorter than MessageLength");
    }
    return problems;
  },
  // irc-framework (and lodash) is loaded on the first connect (see lazy-connection.ts); bursts go out batched except
  // on Twitch (IrcConnection.sendBatch).
  create: lazyConnection(
    () => import("./irc-connection.ts").then((m) => (account, context) => new m.IrcConnection(account, context)),
    { batches: (account) => !isTwitch(account.settings) },
  ),
});
