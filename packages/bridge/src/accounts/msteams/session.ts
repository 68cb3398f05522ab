// The signed-in session of the msteams account: on the first start (or when the kept refresh token is refused) the
// OAuth device-code sign-in, whose code and URL go to the log for a person to use; afterwards the refresh token kept
// in SessionFile. An access token is refreshed a few minutes before it expires; each new refresh token and each
// channel's last seen time are written back to the file. A sign-in waiting for its person outlives a connect
// attempt the core gave up on, so the next attempt waits for the same code instead of showing a new one.
import type { Logger } from "pino";
import { AccountFailure } from "../../core/connection.ts";
import { type DeviceCode, type IdentityClient, OAuthError, type Tokens } from "./identity.ts";
import { readSession, type Session, writeSession } from "./session-file.ts";

/** Refresh this long before the access token expires. */
const REFRESH_MARGIN_MS = 5 * 60_000;

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/** An identity platform refusal retrying cannot fix, as a start-up error naming the key. */
export function signInFailure(error: unknown): AccountFailure | undefined {
  if (!(error instanceof OAuthError)) return undefined;
  if (error.aadsts === 90002 || /tenant/i.test(error.message)) {
    return new AccountFailure(`Microsoft refused TenantID (${error.message})`);
  }
  if (error.error === "unauthorized_client" || error.error === "invalid_client" || error.aadsts === 700016) {
    return new AccountFailure(
      `Microsoft refused ClientID (${error.message}); it must be the Application (client) ID of an app registration with "Allow public client flows" on`,
    );
  }
  if (error.error === "authorization_declined")
    return new AccountFailure("the sign-in to Microsoft Teams was declined");
  return undefined;
}

export class TeamsSession {
  readonly #identity: IdentityClient;
  readonly #path: string;
  readonly #logger: Logger;
  #tokens: Tokens | undefined;
  #cursors: Record<string, number> = {};
  #signIn: Promise<Tokens> | undefined;
  #refreshing: Promise<Tokens> | undefined;

  constructor(identity: IdentityClient, path: string, logger: Logger) {
    this.#identity = identity;
    this.#path = path;
    this.#logger = logger;
  }

  /** Has a usable access token afterwards: refreshes the kept session, or signs in with a device code. */
  async start(): Promise<void> {
    if (this.#tokens !== undefined && this.#tokens.expiresAt - REFRESH_MARGIN_MS > Date.now()) return;
    const kept: Session | undefined = this.#tokens
      ? { refreshToken: this.#tokens.refreshToken, cursors: this.#cursors }
      : readSession(this.#path);
    if (kept !== undefined) {
      this.#cursors = { ...kept.cursors, ...this.#cursors };
      try {
        this.#store(await this.#identity.refresh(kept.refreshToken));
        return;
      } catch (error) {
        if (!(error instanceof OAuthError) || error.error !== "invalid_grant") throw error;
        this.#logger.warn(
          `Microsoft no longer accepts the session kept in ${this.#path} (${error.message}); sign in again`,
        );
      }
    }
    this.#signIn ??= this.#deviceCodeSignIn().finally(() => {
      this.#signIn = undefined;
    });
    this.#store(await this.#signIn);
  }

  /** A valid access token, refreshed first when it expires within a few minutes. */
  async accessToken(): Promise<string> {
    const tokens = this.#tokens;
    if (tokens === undefined) throw new Error("not signed in");
    if (tokens.expiresAt - REFRESH_MARGIN_MS > Date.now()) return tokens.accessToken;
    this.#refreshing ??= this.#identity.refresh(tokens.refreshToken).finally(() => {
      this.#refreshing = undefined;
    });
    const fresh = await this.#refreshing;
    if (this.#tokens === tokens) this.#store(fresh);
    return fresh.accessToken;
  }

  /** Graph refused the access token: the next call refreshes it. */
  invalidate(): void {
    if (this.#tokens !== undefined) this.#tokens = { ...this.#tokens, expiresAt: 0 };
  }

  cursor(channel: string): number | undefined {
    return this.#cursors[channel];
  }

  setCursor(channel: string, ms: number): void {
    if (this.#cursors[channel] === ms) return;
    this.#cursors[channel] = ms;
    this.#save();
  }

  #store(tokens: Tokens): void {
    this.#tokens = tokens;
    this.#save();
  }

  #save(): void {
    if (this.#tokens === undefined) return;
    try {
      writeSession(this.#path, { refreshToken: this.#tokens.refreshToken, cursors: this.#cursors });
    } catch (error) {
      // Not fatal now: the session works in memory; a restart would ask to sign in again.
      this.#logger.error({ err: error }, `could not keep the Teams session: ${(error as Error).message}`);
    }
  }

  async #deviceCodeSignIn(): Promise<Tokens> {
    const code: DeviceCode = await this.#identity.deviceCode();
    const minutes = Math.round((code.expiresAt - Date.now()) / 60_000);
    this.#logger.warn(
      { verificationUri: code.verificationUri, userCode: code.userCode },
      `to sign in to Microsoft Teams as the user the bridge posts as, open ${code.verificationUri} and enter the code ${code.userCode} (valid for ${minutes} minutes)`,
    );
    let interval = code.intervalMs;
    while (Date.now() < code.expiresAt) {
      await sleep(interval);
      try {
        const tokens = await this.#identity.redeem(code);
        this.#logger.info("signed in to Microsoft Teams; the session is kept in SessionFile");
        return tokens;
      } catch (error) {
        if (error instanceof OAuthError && error.error === "authorization_pending") continue;
        if (error instanceof OAuthError && error.error === "slow_down") {
          interval += 5000;
          continue;
        }
        throw error;
      }
    }
    throw new Error("nobody signed in with the code in time; a new code follows");
  }
}
