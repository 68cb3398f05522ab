// The Microsoft identity platform's endpoints for the OAuth 2.0 device authorization grant
// (learn.microsoft.com, "Microsoft identity platform and the OAuth 2.0 device authorization grant flow"):
// POST /{tenant}/oauth2/v2.0/devicecode (client_id, scope) → device_code, user_code, verification_uri, expires_in,
// interval, message; POST /{tenant}/oauth2/v2.0/token with the device_code grant (authorization_pending until the
// user signs in, then tokens; authorization_declined, expired_token, bad_verification_code) or the refresh_token
// grant (invalid_grant once revoked). Errors are 400 with {error, error_description (AADSTS…), error_codes}.
import { randomBytes } from "node:crypto";

export interface OAuthAnswer {
  status: number;
  body: Record<string, unknown>;
}

interface DeviceCode {
  userCode: string;
  clientId: string;
  scope: string;
  expiresAt: number;
  userId?: string;
  declined?: boolean;
}

export interface IdentityOptions {
  tenantId: string;
  clientId: string;
  /** Lifetime of access tokens, seconds (Microsoft's are 60-90 minutes). */
  accessTokenSeconds: number;
}

const USER_CODE_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
export const VERIFICATION_URI = "https://microsoft.com/devicelogin";

const oauthError = (error: string, code: number, description: string): OAuthAnswer => ({
  status: 400,
  body: {
    error,
    error_description: `AADSTS${code}: ${description}\r\nTrace ID: 00000000-0000-0000-0000-000000000000\r\nTimestamp: ${new Date().toISOString()}`,
    error_codes: [code],
    timestamp: new Date().toISOString(),
    trace_id: "00000000-0000-0000-0000-000000000000",
    correlation_id: "00000000-0000-0000-0000-000000000000",
  },
});

export class IdentityPlatform {
  readonly #options: IdentityOptions;
  readonly #deviceCodes = new Map<string, DeviceCode>();
  readonly #refreshTokens = new Map<string, string>();
  /** Access token -> user id and expiry (ms). */
  readonly #accessTokens = new Map<string, { userId: string; expiresAt: number }>();
  /** Told of each device code issued (as the user reading the log line would be). */
  onDeviceCode: ((userCode: string) => void) | undefined;
  refreshes = 0;

  constructor(options: IdentityOptions) {
    this.#options = options;
  }

  /** The user signs in at the verification page with this code. */
  approve(userCode: string, userId: string): void {
    const found = [...this.#deviceCodes.values()].find((code) => code.userCode === userCode);
    if (found === undefined) throw new Error(`no device code ${userCode}`);
    found.userId = userId;
  }

  decline(userCode: string): void {
    const found = [...this.#deviceCodes.values()].find((code) => code.userCode === userCode);
    if (found !== undefined) found.declined = true;
  }

  /** Every refresh token is revoked (a password change, an admin's "revoke sessions"). */
  revokeRefreshTokens(): void {
    this.#refreshTokens.clear();
  }

  /** Every access token expires now. */
  expireAccessTokens(): void {
    for (const token of this.#accessTokens.values()) token.expiresAt = 0;
  }

  /** The user an access token stands for, or undefined when it is unknown or expired. */
  userOf(accessToken: string): string | undefined {
    const token = this.#accessTokens.get(accessToken);
    return token !== undefined && token.expiresAt > Date.now() ? token.userId : undefined;
  }

  answer(tenant: string, endpoint: string, form: URLSearchParams): OAuthAnswer {
    if (tenant !== this.#options.tenantId && tenant !== "organizations" && tenant !== "common") {
      return oauthError(
        "invalid_request",
        90002,
        `Tenant '${tenant}' not found. Check to make sure you have the correct tenant ID.`,
      );
    }
    if (form.get("client_id") !== this.#options.clientId) {
      return oauthError(
        "unauthorized_client",
        700016,
        `Application with identifier '${form.get("client_id") ?? ""}' was not found in the directory.`,
      );
    }
    if (endpoint === "devicecode") return this.#deviceCode(form);
    const grant = form.get("grant_type");
    if (grant === "urn:ietf:params:oauth:grant-type:device_code") return this.#redeem(form);
    if (grant === "refresh_token") return this.#refresh(form);
    return oauthError("unsupported_grant_type", 70003, "The app requested an unsupported grant type.");
  }

  #deviceCode(form: URLSearchParams): OAuthAnswer {
    const scope = form.get("scope") ?? "";
    if (scope.trim() === "")
      return oauthError("invalid_request", 900144, "The request body must contain the 'scope' parameter.");
    let userCode = "";
    for (const byte of randomBytes(9)) userCode += USER_CODE_CHARS[byte % USER_CODE_CHARS.length];
    const deviceCode = randomBytes(24).toString("base64url");
    const expiresIn = 900;
    this.#deviceCodes.set(deviceCode, {
      userCode,
      clientId: form.get("client_id") ?? "",
      scope,
      expiresAt: Date.now() + expiresIn * 1000,
    });
    this.onDeviceCode?.(userCode);
    return {
      status: 200,
      body: {
        user_code: userCode,
        device_code: deviceCode,
        verification_uri: VERIFICATION_URI,
        expires_in: expiresIn,
        interval: 1,
        message: `To sign in, use a web browser to open the page ${VERIFICATION_URI} and enter the code ${userCode} to authenticate.`,
      },
    };
  }

  #redeem(form: URLSearchParams): OAuthAnswer {
    const deviceCode = form.get("device_code") ?? "";
    const pending = this.#deviceCodes.get(deviceCode);
    if (pending === undefined)
      return oauthError("bad_verification_code", 70019, "Verification code was not recognized.");
    if (pending.expiresAt < Date.now())
      return oauthError("expired_token", 70020, "The provided value for the device code has expired.");
    if (pending.declined) return oauthError("authorization_declined", 70021, "The user declined the sign-in.");
    if (pending.userId === undefined) {
      return oauthError(
        "authorization_pending",
        70016,
        "OAuth 2.0 device flow error. Authorization is pending. Continue polling.",
      );
    }
    this.#deviceCodes.delete(deviceCode);
    return this.#tokens(pending.userId, pending.scope);
  }

  #refresh(form: URLSearchParams): OAuthAnswer {
    const userId = this.#refreshTokens.get(form.get("refresh_token") ?? "");
    if (userId === undefined) {
      return oauthError(
        "invalid_grant",
        70000,
        "The provided value for the 'refresh_token' is not valid or has been revoked.",
      );
    }
    this.#refreshTokens.delete(form.get("refresh_token") ?? "");
    this.refreshes++;
    return this.#tokens(userId, form.get("scope") ?? "");
  }

  #tokens(userId: string, scope: string): OAuthAnswer {
    const accessToken = `eyJ0eXAiOiJKV1QifQ.${randomBytes(24).toString("base64url")}.sig`;
    const refreshToken = `0.A${randomBytes(32).toString("base64url")}`;
    const seconds = this.#options.accessTokenSeconds;
    this.#accessTokens.set(accessToken, { userId, expiresAt: Date.now() + seconds * 1000 });
    this.#refreshTokens.set(refreshToken, userId);
    return {
      status: 200,
      body: {
        token_type: "Bearer",
        scope: scope
          .split(/\s+/)
          .filter((s) => s !== "openid" && s !== "profile" && s !== "offline_access")
          .join(" "),
        expires_in: seconds,
        ext_expires_in: seconds,
        access_token: accessToken,
        refresh_token: refreshToken,
        id_token: "eyJ0eXAiOiJKV1QifQ.e30.sig",
      },
    };
  }
}
