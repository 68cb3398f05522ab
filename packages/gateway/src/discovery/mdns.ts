import { thrownMessage } from "@switchboard/common";
import { Bonjour, type Browser, type Service } from "bonjour-service";
import type { Logger } from "pino";
import { backendOf } from "./service-backend.ts";

/** Discovered backends kept at most: announcements beyond are ignored (a flood cannot grow the fleet unboundedly). */
const MAX_DISCOVERED = 256;

/** What discovery changes: the fleet, through the same operations the lifecycle API and reload use. */
export interface DiscoveryFleet {
  /** Whether a configured (or otherwise known) backend already has this URL: static config wins. */
  hasUrl(url: string): boolean;
  hasName(name: string): boolean;
  add(name: string, type: string, url: string): Promise<void>;
  remove(name: string): void;
}

export interface DiscoverySettings {
  /** Nexus's form: "_ollama._tcp.local". */
  serviceTypes: readonly string[];
  gracePeriodSeconds: number;
}

/** "_ollama._tcp.local" → { type: "ollama", protocol: "tcp" }. */
export function parseServiceType(text: string): { type: string; protocol: "tcp" | "udp" } | undefined {
  const match = /^_([a-z0-9-]{1,63})\._(tcp|udp)(\.local)?\.?$/i.exec(text);
  return match ? { type: match[1]!.toLowerCase(), protocol: match[2]!.toLowerCase() as "tcp" | "udp" } : undefined;
}

/**
 * mDNS discovery: browses the configured service types, adds each service as a backend (source `mdns`, named after
 * the instance), and removes it `gracePeriodSeconds` after it goes away (a goodbye or an expired record), unless it
 * comes back first. A URL that a configured backend already has is skipped: static config wins.
 */
export class MdnsDiscovery {
  readonly #bonjour = new Bonjour();
  readonly #browsers: Browser[] = [];
  /** Discovered backends by service fqdn, with their pending removal. */
  readonly #found = new Map<string, { name: string; removal: NodeJS.Timeout | undefined }>();

  constructor(
    private readonly fleet: DiscoveryFleet,
    private readonly settings: DiscoverySettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    for (const text of this.settings.serviceTypes) {
      const parsed = parseServiceType(text);
      if (!parsed) {
        this.logger.warn(`discovery: "${text}" is not a service type like _ollama._tcp.local; ignored`);
        continue;
      }
      const browser = this.#bonjour.find(parsed, (service) => this.#up(service, parsed.type));
      browser.on("down", (service) => this.#down(service));
      this.#browsers.push(browser);
    }
  }

  stop(): void {
    for (const browser of this.#browsers) browser.stop();
    for (const entry of this.#found.values()) clearTimeout(entry.removal);
    this.#found.clear();
    this.#bonjour.destroy();
  }

  #up(service: Service, type: string): void {
    const known = this.#found.get(service.fqdn);
    if (known) {
      clearTimeout(known.removal);
      known.removal = undefined;
      return;
    }
    if (this.#found.size >= MAX_DISCOVERED) return;
    const backend = backendOf({
      name: service.name,
      type,
      port: service.port,
      addresses: service.addresses ?? [],
      txt: (service.txt as Record<string, unknown> | undefined) ?? {},
    });
    if (typeof backend === "string") {
      this.logger.warn(`discovery: ${service.fqdn} ${backend}; ignored`);
      return;
    }
    if (this.fleet.hasUrl(backend.url)) return;
    let name = backend.name;
    for (let suffix = 2; this.fleet.hasName(name); suffix++) name = `${backend.name}-${suffix}`;
    this.#found.set(service.fqdn, { name, removal: undefined });
    this.fleet.add(name, backend.type, backend.url).catch((error: unknown) => {
      this.#found.delete(service.fqdn);
      this.logger.warn(`discovery: could not add ${name}: ${thrownMessage(error)}`);
    });
  }

  #down(service: Service): void {
    const known = this.#found.get(service.fqdn);
    if (!known || known.removal) return;
    known.removal = setTimeout(() => {
      this.#found.delete(service.fqdn);
      this.fleet.remove(known.name);
    }, this.settings.gracePeriodSeconds * 1000);
    known.removal.unref();
  }
}
