// The mumble account's own keys: Matterbridge's spellings and defaults (bridge/mumble, matterbridge.toml.sample).
import { key } from "../../config/key-spec.ts";

export const MUMBLE_KEYS = {
  Server: key.string({
    required: true,
    example: '"mumble.example.com:64738"',
    description: 'the Mumble server, "host:port" (port 64738 when omitted)',
  }),
  Nick: key.string({ required: true, example: '"bridgebot"', description: "the bot's user name on the server" }),
  Password: key.string({ secret: true, description: "the server password, when the server has one" }),
  UserComment: key.string({ default: "", description: "the comment shown on the bot's user (HTML allowed)" }),
  TLSClientCertificate: key.string({
    default: "",
    description: "a PEM certificate file identifying the bot (registered users are known by their certificate)",
  }),
  TLSClientKey: key.string({ default: "", description: "the PEM private key file of TLSClientCertificate" }),
  TLSCACertificate: key.string({
    default: "",
    description: "a PEM file of the CA (or the self-signed certificate) the server's certificate is checked against",
  }),
  SkipTLSVerify: key.boolean({ default: false, description: "accept any server certificate (self-signed servers)" }),
  MessageClipped: key.string({ default: "<clipped message>", description: "appended to a clipped message" }),
} as const;
