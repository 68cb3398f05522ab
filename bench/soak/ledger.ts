// The bridge's message ledger: every text the soak sends carries "soak-<source>-<seq>"; each send that the bridge
// accepted records where the message must arrive, each arrival is counted per destination. At the end, a message
// with an expected destination it never reached is lost there; one that arrived more than once is duplicated.

export type Endpoint = "api" | "irc" | "xmpp";
/** Where messages are read: the api account's stream and its /api/messages poller, the IRC and XMPP humans. */
export type Destination = "api-stream" | "api-poll" | "irc" | "xmpp";

const TAG = /soak-([aix])-(\d+)/;
const LETTER: Record<Endpoint, string> = { api: "a", irc: "i", xmpp: "x" };

export interface LedgerSummary {
  accepted: number;
  /** Expected deliveries (message × destination). */
  expected: number;
  lost: number;
  duplicated: number;
  /** Arrivals of messages the ledger never recorded as accepted (e.g. an IRC line sent while the bridge was away). */
  unexpected: number;
  lostByDestination: Record<string, number>;
  /** A few lost tags, for the log. */
  lostExamples: string[];
}

export class Ledger {
  #next = 0;
  readonly #expected = new Map<string, Destination[]>();
  readonly #arrivals = new Map<string, number>();

  /** A new tagged text for a message from `source`. */
  text(source: Endpoint): { tag: string; text: string } {
    const tag = `soak-${LETTER[source]}-${this.#next++}`;
    return { tag, text: `${tag} the quick brown fox` };
  }

  accepted(tag: string, destinations: Destination[]): void {
    this.#expected.set(tag, destinations);
  }

  /**
   * Counts an arrival at `destination` of whatever tagged text `text` holds (other texts are ignored). An arrival may
   * come before its send is recorded as accepted (the api's stream can be faster than the POST's answer).
   */
  arrived(destination: Destination, text: string): void {
    const tag = TAG.exec(text)?.[0];
    if (tag === undefined) return;
    const key = `${tag}@${destination}`;
    this.#arrivals.set(key, (this.#arrivals.get(key) ?? 0) + 1);
  }

  /** Deliveries still missing (for waiting until the bridge has drained). */
  missing(): number {
    let missing = 0;
    for (const [tag, destinations] of this.#expected) {
      for (const destination of destinations) if (!this.#arrivals.has(`${tag}@${destination}`)) missing++;
    }
    return missing;
  }

  summary(): LedgerSummary {
    const lostByDestination: Record<string, number> = {};
    const lostExamples: string[] = [];
    let expected = 0;
    let lost = 0;
    let duplicated = 0;
    for (const [tag, destinations] of this.#expected) {
      for (const destination of destinations) {
        expected++;
        const count = this.#arrivals.get(`${tag}@${destination}`) ?? 0;
        if (count === 0) {
          lost++;
          lostByDestination[destination] = (lostByDestination[destination] ?? 0) + 1;
          if (lostExamples.length < 10) lostExamples.push(`${tag}@${destination}`);
        } else if (count > 1) duplicated += count - 1;
      }
    }
    let unexpected = 0;
    for (const key of this.#arrivals.keys()) if (!this.#expected.has(key.slice(0, key.indexOf("@")))) unexpected++;
    return {
      accepted: this.#expected.size,
      expected,
      lost,
      duplicated,
      unexpected,
      lostByDestination,
      lostExamples,
    };
  }
}
