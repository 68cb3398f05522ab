// GET /health: each account's connection state and the overall verdict. 200 only when every account is connected
// (a reconnecting or failed account means messages are held or lost), 503 otherwise, so a probe or an alert on the
// status code alone sees that the bridge is not relaying everything.
import type { AccountView } from "./account-view.ts";

type AccountState = "connecting" | "connected" | "reconnecting" | "failed" | "stopped";

interface AccountHealth {
  account: string;
  protocol: string;
  state: AccountState;
  /** Why it is not connected: the disconnect's or the last failed attempt's reason; for `failed`, why for good. */
  reason?: string;
  /** Failed attempts since the account was last up. */
  failed_attempts: number;
  /** `reconnecting` between attempts: when the next one starts (ISO 8601); absent while an attempt is in progress. */
  next_attempt_at?: string;
  /** Messages held for the account's channels. */
  queued: number;
}

export interface HealthReport {
  /** "ok" when every account is connected, else "degraded". */
  status: "ok" | "degraded";
  accounts: AccountHealth[];
}

function accountHealth(account: AccountView, now: number): AccountHealth {
  const status = account.supervisor.status;
  let queued = 0;
  for (const depth of account.queueDepths().values()) queued += depth;
  const health: AccountHealth = {
    account: account.id,
    protocol: account.protocol,
    state: stateOf(status.state, status.wasUp || status.failedAttempts > 0),
    failed_attempts: status.failedAttempts,
    queued,
  };
  if (status.reason !== undefined) health.reason = status.reason;
  if (status.nextAttemptInMs !== undefined) {
    health.next_attempt_at = new Date(now + status.nextAttemptInMs).toISOString();
  }
  return health;
}

function stateOf(state: AccountView["supervisor"]["status"]["state"], retrying: boolean): AccountState {
  switch (state) {
    case "connected":
    case "failed":
    case "stopped":
      return state;
    case "waiting":
      return "reconnecting";
    case "connecting":
      return retrying ? "reconnecting" : "connecting";
    case "idle":
      return "connecting";
  }
}

/** The report and its HTTP status (200 or 503). */
export function healthReport(
  accounts: Iterable<AccountView>,
  now = Date.now(),
): { status: number; body: HealthReport } {
  const list = [...accounts].map((account) => accountHealth(account, now));
  const ok = list.every((account) => account.state === "connected");
  return { status: ok ? 200 : 503, body: { status: ok ? "ok" : "degraded", accounts: list } };
}
