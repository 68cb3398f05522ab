// The calls of a backend's native APIs: a chat whose answer passes untouched (its usage read on the way where the
// backend is billed), and a plain call to the API's other endpoints.
import type { BackendHttpClient } from "./http-client.ts";
import type { BackendContext } from "./module.ts";
import { type NativeUsageReader, NativeUsageTap } from "./native-usage-tap.ts";
import type { NativeChat } from "./types.ts";

/** A cloud backend's native chat: the usage `reader` finds in the answer is reported as this backend's (spend). */
export function tappedNativeChat(
  client: BackendHttpClient,
  context: BackendContext,
  backend: string,
  reader: () => NativeUsageReader,
): NativeChat["chat"] {
  return (call, ids, sink) => {
    const tap = new NativeUsageTap(sink, reader(), (usage) => {
      if (usage) context.onUsage({ backend, model: call.model, usage, reported: true });
    });
    return client.dispatch(call.path, call.body, ids, tap, call.headers);
  };
}

/** A native chat relayed as it is: a local backend's, whose tokens the answer's own usage (if any) tells. */
export function plainNativeChat(client: BackendHttpClient): NativeChat["chat"] {
  return (call, ids, sink) => client.dispatch(call.path, call.body, ids, sink, call.headers);
}

/** A POST to another endpoint of the API, answered whole. */
export function wholeNativeCall(client: BackendHttpClient): NonNullable<NativeChat["call"]> {
  return (call, ids, signal) => client.fetch("POST", call.path, call.body, { signal, ids, headers: call.headers });
}
