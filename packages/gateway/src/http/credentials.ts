import type { IncomingHttpHeaders } from "node:http";
import { isGeminiPath } from "../inbound/gemini/path.ts";

/**
 * The key a request presents: `Authorization: Bearer <key>`; `x-api-key` from Anthropic's clients (on /v1/messages,
 * and on any request that carries anthropic-version, as their model listing does); `x-goog-api-key` from Gemini's
 * clients (on the Gemini API's paths; never `?key=`, which would put the key in access logs); HTTP Basic's password
 * where a browser asks (the dashboard and /metrics).
 */
export function presentedKey(headers: IncomingHttpHeaders, path: string, allowBasic: boolean): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === "string") {
    const bearer = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    if (bearer) return bearer[1];
    if (allowBasic) {
      const basic = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
      if (basic) {
        const decoded = Buffer.from(basic[1]!, "base64").toString("utf8");
        const colon = decoded.indexOf(":");
        return colon >= 0 ? decoded.slice(colon + 1) : undefined;
      }
    }
  }
  const apiKey = headers["x-api-key"];
  const anthropicClient = path.startsWith("/v1/messages") || headers["anthropic-version"] !== undefined;
  if (typeof apiKey === "string" && apiKey !== "" && anthropicClient) return apiKey;
  const googleKey = headers["x-goog-api-key"];
  if (typeof googleKey === "string" && googleKey !== "" && isGeminiPath(path)) return googleKey;
  return undefined;
}
