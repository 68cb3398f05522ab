// The api account's own keys (Matterbridge's BindAddress, Buffer, Token; BodyLimit is Switchboard's).
import { key } from "../../config/key-spec.ts";

export const DEFAULT_BUFFER = 10;
const DEFAULT_BODY_LIMIT = 1024 * 1024;

export const API_KEYS = {
  BindAddress: key.string({
    required: true,
    example: '"127.0.0.1:4242"',
    description: 'where the API listens, "host:port"; ":4242" listens on every interface',
  }),
  Buffer: key.integer({
    default: DEFAULT_BUFFER,
    min: 0,
    max: 1_000_000,
    description: "capacity of the /api/messages ring (0 means 10)",
  }),
  Token: key.string({ secret: true, description: "when set, every route needs Authorization: Bearer <Token>" }),
  BodyLimit: key.integer({
    default: DEFAULT_BODY_LIMIT,
    min: 1,
    max: 1024 ** 3,
    description: "largest accepted request body and websocket frame, in bytes",
  }),
  // HTTP connection limits (Switchboard's): slow or idle clients are cut and the number of connections is capped.
  ReadHeaderTimeout: key.integer({
    default: 10,
    min: 1,
    max: 3600,
    description: "seconds for the request line and headers to arrive (408 otherwise)",
  }),
  ReadTimeout: key.integer({
    default: 30,
    min: 1,
    max: 3600,
    description: "seconds for the whole request, body included, to arrive (408 otherwise)",
  }),
  IdleTimeout: key.integer({
    default: 10,
    min: 1,
    max: 3600,
    description: "seconds a kept-alive connection may wait with no request before it is closed",
  }),
  RawIngress: key.boolean({
    default: true,
    description:
      "read the ordinary POST /api/message straight off the connection, without node:http's request objects (same " +
      "answers); false leaves every request to node:http",
  }),
  MaxConnections: key.integer({
    default: 1000,
    min: 1,
    max: 1_000_000,
    description: "connections beyond this many are refused (streams and websockets count)",
  }),
} as const;
