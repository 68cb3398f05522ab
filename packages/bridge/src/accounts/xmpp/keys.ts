// The xmpp account's own keys: Matterbridge's spellings and defaults (bridge/xmpp/xmpp.go, matterbridge.toml.sample).
import { key } from "../../config/key-spec.ts";

/** Far under what servers take in one stanza (Prosody 256 KiB, ejabberd's usual 64 KiB), as long as a long post. */
const DEFAULT_MESSAGE_LENGTH = 32_768;

export const XMPP_KEYS = {
  Server: key.string({
    required: true,
    example: '"jabber.example.com:5222"',
    description: 'the server to connect to, "host:port" (port 5222 when omitted)',
  }),
  Jid: key.string({
    example: '"bridgebot@jabber.example.com"',
    description: "the bot's account (required unless Anonymous); its domain is the XMPP domain logged in to",
  }),
  Password: key.string({ secret: true, description: "the bot's password (required unless Anonymous)" }),
  Muc: key.string({
    required: true,
    example: '"conference.jabber.example.com"',
    description: "the MUC service: a gateway channel `lobby` is the room lobby@<Muc>",
  }),
  Nick: key.string({ required: true, example: '"bridgebot"', description: "the bot's nick in the rooms" }),
  NoTLS: key.boolean({
    default: false,
    description: "connect without STARTTLS (and allow PLAIN login on the unencrypted stream)",
  }),
  SkipTLSVerify: key.boolean({ default: false, description: "accept any server certificate on STARTTLS" }),
  Anonymous: key.boolean({
    default: false,
    description: "log in with SASL ANONYMOUS on the domain of Server (no Jid or Password)",
  }),
  MessageLength: key.integer({
    default: DEFAULT_MESSAGE_LENGTH,
    min: 1024,
    max: 1_048_576,
    description:
      "bytes of a message's body, XML-escaped; longer ones are clipped (servers close the stream on a stanza over their limit: Prosody 256 KiB)",
  }),
  MessageClipped: key.string({ default: "<clipped message>", description: "appended to a clipped message" }),
} as const;

/** Matterbridge xmpp keys Switchboard does not implement yet (warned about as such). */
export const XMPP_UNSUPPORTED_KEYS = ["WebhookURL"] as const;
