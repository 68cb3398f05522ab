// Counts a service's warning and error log lines (pino JSON: level 40 warn, 50 error, 60 fatal) as they are written,
// keeping a few distinct messages of each so that the report can say what went wrong, not only how often.
import type { ManagedProcess } from "@switchboard/testkit";

const KEPT_MESSAGES = 8;

export class LogLevels {
  warnings = 0;
  errors = 0;
  /** Distinct messages with their counts, by level ("warn", "error"). */
  readonly messages = { warn: new Map<string, number>(), error: new Map<string, number>() };
  #pending = "";

  constructor(service: ManagedProcess) {
    const onData = (chunk: Buffer) => {
      this.#pending += chunk.toString("utf8");
      const lines = this.#pending.split("\n");
      this.#pending = lines.pop() ?? "";
      for (const line of lines) this.#line(line);
    };
    service.child.stdout?.on("data", onData);
    service.child.stderr?.on("data", onData);
  }

  #line(line: string): void {
    let level: number;
    let message: string;
    try {
      const entry = JSON.parse(line) as { level?: unknown; msg?: unknown };
      level = typeof entry.level === "number" ? entry.level : 30;
      message = String(entry.msg ?? "");
    } catch {
      // Not JSON: Node's own warnings and crashes go to stderr as plain text.
      if (line.trim() === "") return;
      level = /error|exception|fatal/i.test(line) ? 50 : 40;
      message = line;
    }
    if (level < 40) return;
    const kind = level >= 50 ? "error" : "warn";
    if (kind === "error") this.errors++;
    else this.warnings++;
    // Numbers (ports, counts, ids) vary: keep the messages' shape.
    const shape = message.replace(/\d+/g, "N").slice(0, 160);
    const kept = this.messages[kind];
    if (kept.has(shape) || kept.size < KEPT_MESSAGES) kept.set(shape, (kept.get(shape) ?? 0) + 1);
  }

  describe(kind: "warn" | "error"): string[] {
    return [...this.messages[kind]].map(([message, count]) => `${count}× ${message}`);
  }
}
