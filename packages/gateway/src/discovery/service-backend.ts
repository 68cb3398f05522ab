import { isIPv4 } from "node:net";

/** What discovery reads from a resolved mDNS service. */
export interface DiscoveredService {
  /** The instance name ("gpu-box" in gpu-box._ollama._tcp.local). */
  name: string;
  /** The service type without protocol ("ollama", "llm"). */
  type: string;
  port: number;
  addresses: readonly string[];
  txt: Readonly<Record<string, unknown>>;
}

/** Local types an mDNS service may announce in its TXT `type`; cloud types need keys and are never discovered. */
const ANNOUNCED_TYPES = new Map([
  ["ollama", "ollama"],
  ["vllm", "vllm"],
  ["llamacpp", "llamacpp"],
  ["llama.cpp", "llamacpp"],
  ["lmstudio", "lmstudio"],
  ["exo", "exo"],
  ["generic", "generic"],
]);

/** Longest backend name made from an instance name. */
const MAX_NAME = 63;

/**
 * The backend a service describes, or why it cannot be one: type from the TXT `type` (else Ollama for `_ollama`
 * services, generic otherwise), URL from its first IPv4 address (else the first address) and port.
 */
export function backendOf(service: DiscoveredService): { name: string; type: string; url: string } | string {
  const announced = typeof service.txt["type"] === "string" ? service.txt["type"].toLowerCase() : undefined;
  const type =
    announced !== undefined ? ANNOUNCED_TYPES.get(announced) : service.type.startsWith("ollama") ? "ollama" : "generic";
  if (type === undefined) return `announces type "${announced}", which is not a local backend type`;
  if (!Number.isInteger(service.port) || service.port < 1 || service.port > 65535) return "has no valid port";
  const address = service.addresses.find((candidate) => isIPv4(candidate)) ?? service.addresses[0];
  if (address === undefined) return "has no address";
  const host = address.includes(":") ? `[${address}]` : address;
  const name = service.name
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_NAME);
  if (name === "") return "has no usable name";
  return { name, type, url: `http://${host}:${service.port}` };
}
