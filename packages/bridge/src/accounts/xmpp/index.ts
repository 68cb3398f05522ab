// The `xmpp` protocol: a bot account on an XMPP server that joins each gateway channel as a MUC room (<channel>@Muc).
import { defineProtocol } from "../../config/descriptor.ts";
import { lazyConnection } from "../lazy-connection.ts";
import { XMPP_KEYS, XMPP_UNSUPPORTED_KEYS } from "./keys.ts";
import { parseServer } from "./login.ts";

export const xmppProtocol = defineProtocol({
  name: "xmpp",
  keys: XMPP_KEYS,
  unsupportedKeys: XMPP_UNSUPPORTED_KEYS,
  // Through the server's HTTP File Upload service (XEP-0363); as links where it has none.
  capabilities: { uploads: true },
  validate(settings) {
    const problems: string[] = [];
    if (parseServer(settings.Server) === undefined) {
      problems.push(
        `Server must be host:port, e.g. "jabber.example.com:5222" (got ${JSON.stringify(settings.Server)})`,
      );
    }
    if (!settings.Anonymous) {
      const jid = settings.Jid ?? "";
      if (!/^[^@/\s]+@[^@/\s]+$/.test(jid)) {
        problems.push(
          jid === ""
            ? 'has no Jid; add e.g. Jid = "bridgebot@jabber.example.com" (or Anonymous = true)'
            : `Jid must be user@domain, e.g. "bridgebot@jabber.example.com" (got ${JSON.stringify(jid)})`,
        );
      }
      if ((settings.Password ?? "") === "") problems.push("has no Password; add Password = ... (or Anonymous = true)");
    }
    if (settings.Muc.trim() === "" || /[@/\s]/.test(settings.Muc.trim())) {
      problems.push('Muc must be the MUC service\'s domain, e.g. "conference.jabber.example.com"');
    }
    if (settings.Nick.trim() === "") problems.push('Nick must not be empty; add e.g. Nick = "bridgebot"');
    return problems;
  },
  // Its client library is loaded on the first connect (see lazy-connection.ts).
  create: lazyConnection(() =>
    import("./xmpp-connection.ts").then((m) => (account, context) => new m.XmppConnection(account, context)),
  ),
});
