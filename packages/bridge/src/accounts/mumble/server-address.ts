// The Server setting as host and port; apart from the connection so that validating a config loads no client.
/** host:port, [v6]:port, or a host alone (port 64738). */
export function parseServer(server: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]+))(?::(\d{1,5}))?$/.exec(server.trim());
  if (match === null) return undefined;
  const port = match[3] === undefined ? 64738 : Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1] ?? match[2] ?? "", port };
}
