// A "host:port" address as the config writes it (BindAddress, StatusAddress): "127.0.0.1:4242", "[::1]:0", or
// ":4242" for every interface. Port 0 lets the system pick one (the bound address is logged).

import { thrownMessage } from "@switchboard/common";

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^:\s]*):\d{1,5}$/;

export function isHostPort(text: string): boolean {
  return HOST_PORT.test(text) && Number(text.slice(text.lastIndexOf(":") + 1)) <= 65535;
}

/** Host and port of a valid address; an empty host is every IPv4 interface. */
export function parseHostPort(text: string): { host: string; port: number } {
  const colon = text.lastIndexOf(":");
  let host = text.slice(0, colon);
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return { host: host === "" ? "0.0.0.0" : host, port: Number(text.slice(colon + 1)) };
}

/** "host:port" as a URL authority, brackets around an IPv6 host. */
export function showHostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Why listening on an address failed, as the end of a sentence that names the key: "BindAddress X is already in use". */
export function listenFailureReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") return "is already in use";
  if (code === "EADDRNOTAVAIL") return "is not an address of this machine";
  if (code === "EACCES") return "needs more privileges";
  return `cannot be listened on (${code ?? thrownMessage(error)})`;
}
