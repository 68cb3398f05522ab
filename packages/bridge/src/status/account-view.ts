// What the status endpoint reads of an account: read-only accessors the core offers (SupervisedAccount has them).
import type { ConnectionStatus } from "../core/supervisor.ts";

export interface AccountView {
  readonly id: string;
  readonly protocol: string;
  readonly supervisor: { readonly status: ConnectionStatus };
  /** Messages held per destination channel. */
  queueDepths(): ReadonlyMap<string, number>;
}
