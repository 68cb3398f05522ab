// The Microsoft identity platform's OAuth 2.0 endpoints the account signs in with (LoginURL/{TenantID}/oauth2/v2.0/):
// the device authorization grant (devicecode, then token until the user has signed in) and the refresh_token grant.
// Failures come out as OAuthError with the OAuth error code and Microsoft's AADSTS code.
import { integerOf, objectOf, stringOf } from "../json-fields.ts";

/** Matterbridge's scopes, narrowed to what reading and writing channel messages needs. */
const SCOPES =
  "offline_access openid profile User.Read Channel.ReadBasic.All ChannelMessage.Read.All ChannelMessage.Send ChannelMessage.ReadWrite";
const CALL_TIMEOUT_MS = 30_000;

export class OAuthError extends Error {
  override readonly name = "OAuthError";
  constructor(
    readonly error: string,
    /** The first AADSTS code (90002: no such tenant, 700016: no such application...), 0 when none. */
    readonly aadsts: number,
    message: string,
  ) {
    super(message);
  }
}

export interface Tokens {
  accessToken: string;
  refreshToken: string;
  /** When the access token expires (ms since the epoch). */
  expiresAt: number;
}

export interface DeviceCode {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  expiresAt: number;
  intervalMs: number;
}

export class IdentityClient {
  readonly #base: string;

  constructor(
    loginUrl: string,
    tenantId: string,
    readonly clientId: string,
  ) {
    this.#base = `${loginUrl.replace(/\/+$/, "")}/${encodeURIComponent(tenantId)}/oauth2/v2.0`;
  }

  async deviceCode(): Promise<DeviceCode> {
    const body = await this.#post("devicecode", { client_id: this.clientId, scope: SCOPES });
    const deviceCode = stringOf(body.device_code);
    const userCode = stringOf(body.user_code);
    if (deviceCode === undefined || userCode === undefined)
      throw new OAuthError("", 0, "the device code answer has no codes");
    return {
      deviceCode,
      userCode,
      verificationUri: stringOf(body.verification_uri) ?? "https://microsoft.com/devicelogin",
      expiresAt: Date.now() + (integerOf(body.expires_in) ?? 900) * 1000,
      intervalMs: Math.max(1, integerOf(body.interval) ?? 5) * 1000,
    };
  }

  /** The tokens once the user signed in; throws OAuthError `authorization_pending` until then. */
  redeem(code: DeviceCode): Promise<Tokens> {
    return this.#tokens({
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      client_id: this.clientId,
      device_code: code.deviceCode,
    });
  }

  refresh(refreshToken: string): Promise<Tokens> {
    return this.#tokens({
      grant_type: "refresh_token",
      client_id: this.clientId,
      refresh_token: refreshToken,
      scope: SCOPES,
    });
  }

  async #tokens(form: Record<string, string>): Promise<Tokens> {
    const body = await this.#post("token", form);
    const accessToken = stringOf(body.access_token);
    const refreshToken = stringOf(body.refresh_token);
    if (accessToken === undefined || refreshToken === undefined) {
      throw new OAuthError("", 0, "the token answer has no access or refresh token (is offline_access allowed?)");
    }
    return { accessToken, refreshToken, expiresAt: Date.now() + (integerOf(body.expires_in) ?? 3600) * 1000 };
  }

  async #post(endpoint: string, form: Record<string, string>): Promise<Record<string, unknown>> {
    const response = await fetch(`${this.#base}/${endpoint}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams(form),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(await response.text());
    } catch {}
    const body = objectOf(parsed) ?? {};
    if (response.ok) return body;
    const error = stringOf(body.error) ?? `http_${response.status}`;
    const description = (stringOf(body.error_description) ?? "").split(/\r?\n/)[0] ?? "";
    const codes = Array.isArray(body.error_codes) ? body.error_codes : [];
    throw new OAuthError(error, integerOf(codes[0]) ?? 0, `${error}: ${description || response.statusText}`);
  }
}
