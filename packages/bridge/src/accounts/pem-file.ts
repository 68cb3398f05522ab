import { readFileSync } from "node:fs";
import { thrownMessage } from "@switchboard/common";
import { AccountFailure } from "../core/connection.ts";

/**
 * A PEM file an account's key names (a client certificate, its key, a CA), read at each connect so that a renewed
 * certificate is picked up by the next reconnect. One that cannot be read is the account's failure: retrying
 * cannot help, the config must change.
 */
export function readPemFile(key: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new AccountFailure(`cannot read ${key} (${path}): ${thrownMessage(error)}`);
  }
}
