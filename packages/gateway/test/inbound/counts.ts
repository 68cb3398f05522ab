// What every inbound-API test checks at its end: each call it made is counted by /v1/stats and /metrics.
import assert from "node:assert/strict";
import { http } from "../helpers.ts";

/** The sum of a counter's samples whose labels include every given `name="value"`. */
function counterSum(text: string, metric: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${metric}{`)) continue;
    if (!Object.entries(labels).every(([name, value]) => line.includes(`${name}="${value}"`))) continue;
    sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

/** Stats and metrics have counted `calls` completed model requests (each completion is an event: wait for them). */
export async function assertCounted(gatewayUrl: string, calls: number, endpoint?: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  let stats: { requests: { completed: number } } | undefined;
  while (Date.now() < deadline) {
    stats = (await http(`${gatewayUrl}/v1/stats`)).json();
    if ((stats?.requests.completed ?? 0) >= calls) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(stats?.requests.completed, calls, "every call is one completed request in /v1/stats");
  const metrics = (await http(`${gatewayUrl}/metrics`)).text;
  const labels: Record<string, string> = endpoint ? { endpoint } : {};
  assert.equal(counterSum(metrics, "gateway_requests_total", labels), calls, "and one in gateway_requests_total");
}
