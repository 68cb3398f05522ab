// Anthropic's count_tokens at the provider. The gateway's own count (o200k) is an estimate of Claude's tokenizer;
// an anthropic backend of the model counts exactly, for free. The backends routing would send the request to are
// asked in their order; the gateway counts locally when none of them can answer.
import type { IncomingHttpHeaders } from "node:http";
import type { UpstreamReply } from "../backends/types.ts";
import { bodyWithModel } from "../dispatch/rewrite-body.ts";
import type { JsonBody } from "../request/body.ts";
import type { ChatBody } from "../request/chat.ts";
import { chatRequirements } from "../routing/requirements.ts";
import type { GatewayContext } from "./context.ts";
import { decideOnceProbed } from "./decide-once-probed.ts";
import { routeControls } from "./route-controls.ts";

const COUNT_PATH = "/v1/messages/count_tokens";
/** A count is a small call: a backend that takes longer is passed over for the local count. */
const COUNT_TIMEOUT_MS = 10_000;

export interface ProviderCount {
  /** The backend that counted. */
  backend: string;
  /** Its answer as Anthropic wrote it: the count, or its refusal of the request (a 4xx the client should see). */
  reply: UpstreamReply;
}

/** The count of the first backend that answers it, or undefined (no anthropic backend, or none answered). */
export async function countAtProvider(
  context: GatewayContext,
  request: { id: string; headers: IncomingHttpHeaders },
  json: JsonBody,
  body: ChatBody,
  forwarded: Readonly<Record<string, string>>,
): Promise<ProviderCount | undefined> {
  const requested = body.model;
  const requirements = chatRequirements(body);
  requirements.api = "anthropic-messages";
  const controls = routeControls(request.headers);
  const decide = () => context.router.decide(requested, requirements, context.registry, controls);
  const decision = await decideOnceProbed(decide, context.firstRound);
  // A backend at its concurrency limit can still count: counting takes none of its slots.
  const targets =
    decision.outcome === "route" ? decision.targets : decision.outcome === "at_capacity" ? decision.blocked : [];
  for (const target of targets) {
    const native = target.backend.backend.natives?.["anthropic-messages"];
    if (native?.call === undefined) continue;
    const call = {
      path: COUNT_PATH,
      body: bodyWithModel(json.value as Record<string, unknown>, json.raw, target.model),
      headers: forwarded,
    };
    try {
      const reply = await native.call(call, { requestId: request.id }, AbortSignal.timeout(COUNT_TIMEOUT_MS));
      // Anthropic's overload or rate limit, or its failure: the next backend, or the local count.
      if (reply.statusCode === 429 || reply.statusCode >= 500) continue;
      return { backend: target.backend.name, reply };
    } catch {
      // Unreachable or too slow: likewise.
    }
  }
  return undefined;
}
