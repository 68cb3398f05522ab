// The gateway's raw ingress: the shared one (@switchboard/common, http1/raw-ingress.ts) taking the JSON content types
// of its model routes, one request of a connection at a time (a model call is answered when it is done).
import { type RawIngressOptions, RawIngress as SharedRawIngress } from "@switchboard/common";
import { JSON_TYPES } from "../fast-model-routes.ts";

export class RawIngress extends SharedRawIngress {
  constructor(options: Omit<RawIngressOptions, "contentTypes" | "maxPipelined">) {
    super({ ...options, contentTypes: JSON_TYPES, maxPipelined: 1 });
  }
}
