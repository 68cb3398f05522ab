// The `mumble` protocol: a text-only Mumble client that sits in one channel, given by its id (mumble-connection.ts).
import { defineProtocol } from "../../config/descriptor.ts";
import { lazyConnection } from "../lazy-connection.ts";
import { MUMBLE_KEYS } from "./keys.ts";
import { parseServer } from "./server-address.ts";

export const mumbleProtocol = defineProtocol({
  name: "mumble",
  keys: MUMBLE_KEYS,
  // murmurd's default text limit is 1 message per second (burst 5), and it drops what exceeds it without a word.
  defaults: { MessageDelay: 1000 },
  validate(settings) {
    const problems: string[] = [];
    if (parseServer(settings.Server) === undefined) {
      problems.push(
        `Server must be host:port, e.g. "mumble.example.com:64738" (got ${JSON.stringify(settings.Server)})`,
      );
    }
    if (settings.Nick.trim() === "") problems.push('Nick must not be empty; add e.g. Nick = "bridgebot"');
    if (settings.TLSClientKey !== "" && settings.TLSClientCertificate === "") {
      problems.push("TLSClientKey needs TLSClientCertificate (the certificate the key belongs to)");
    }
    return problems;
  },
  // Its client code is loaded on the first connect (see lazy-connection.ts).
  create: lazyConnection(() =>
    import("./mumble-connection.ts").then((m) => (account, context) => new m.MumbleConnection(account, context)),
  ),
});
