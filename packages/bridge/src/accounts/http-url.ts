// The check of a key holding a platform's base URL (ApiURL, Server): an http(s) URL, or a problem text that says
// what to write.

export function httpUrlProblem(key: string, value: string, example: string): string | undefined {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {}
  if (url !== undefined && (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "")
    return undefined;
  return `${key} must be an http(s) URL such as "${example}" (got ${JSON.stringify(value)})`;
}
