// The fixture shared by the api suites: four api accounts on one gateway, one with a tiny ring and body limit, one
// behind a token.
import { type RunningBridge, readMessages } from "./helpers.ts";

export const TOKEN = "s3cret-Token_value";

export const FOUR_ACCOUNTS = `
[api.a]
BindAddress = "127.0.0.1:0"
Buffer = 100

[api.b]
BindAddress = "127.0.0.1:0"
Buffer = 100

[api.small]
BindAddress = "127.0.0.1:0"
Buffer = 3
BodyLimit = 1024

[api.locked]
BindAddress = "127.0.0.1:0"
Token = "${TOKEN}"

[[gateway]]
name = "gw"
enable = true
  [[gateway.inout]]
  account = "api.a"
  [[gateway.inout]]
  account = "api.b"
  [[gateway.inout]]
  account = "api.small"
  [[gateway.inout]]
  account = "api.locked"
`;

/** Empties every account's ring, so a test starts from nothing buffered. */
export async function drainAll(run: RunningBridge): Promise<void> {
  for (const name of ["a", "b", "small"]) await readMessages(run.url(`api.${name}`));
  await readMessages(run.url("api.locked"), { authorization: `Bearer ${TOKEN}` });
}
