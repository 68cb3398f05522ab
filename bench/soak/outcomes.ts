// What the soak's clients saw, by kind of request: how many, how many failed in an expected way (a client's own
// abort, a stream cut by the backend the soak stops on purpose) and how many failed unexpectedly, with examples.

export interface Verdict {
  /** Why the failure was expected (the request still counts as done). */
  expected?: string;
  /** What went wrong. */
  unexpected?: string;
}

const KEPT_EXAMPLES = 10;

export class Outcomes {
  readonly done = new Map<string, number>();
  readonly expected = new Map<string, number>();
  readonly unexpected = new Map<string, number>();
  readonly examples: string[] = [];

  async track(kind: string, run: () => Promise<Verdict>): Promise<void> {
    let verdict: Verdict;
    try {
      verdict = await run();
    } catch (error) {
      verdict = { unexpected: `${kind}: ${describe(error)}` };
    }
    this.done.set(kind, (this.done.get(kind) ?? 0) + 1);
    if (verdict.expected !== undefined) bump(this.expected, verdict.expected);
    if (verdict.unexpected !== undefined) {
      bump(this.unexpected, kind);
      if (this.examples.length < KEPT_EXAMPLES) this.examples.push(`${new Date().toISOString()} ${verdict.unexpected}`);
    }
  }

  total(map: Map<string, number>): number {
    let sum = 0;
    for (const count of map.values()) sum += count;
    return sum;
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** The error and its cause: fetch's own message ("fetch failed") says nothing of what the socket saw. */
function describe(error: unknown): string {
  const { message, cause } = error as Error;
  if (!(cause instanceof Error)) return message;
  const code = (cause as NodeJS.ErrnoException).code;
  return `${message} (${code === undefined ? cause.message : `${code}: ${cause.message}`})`;
}
