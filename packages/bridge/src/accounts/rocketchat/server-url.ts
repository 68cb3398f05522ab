// Matterbridge's Server setting as a URL; apart from the connection so that validating a config loads no client.
/** The server's base URL from Server: a URL, or Matterbridge-style "host[:port]" with NoTLS. */
export function serverUrl(server: string, noTls: boolean): string {
  const trimmed = server.trim().replace(/\/+$/, "");
  return /^https?:\/\//i.test(trimmed) ? trimmed : `${noTls ? "http" : "https"}://${trimmed}`;
}
