import type { FastifyInstance } from "fastify";
import { countPromptTokens } from "../../policy/tokens.ts";
import { chatRequirements } from "../../routing/requirements.ts";
import { setBudgetHeaders } from "../budget-headers.ts";
import type { GatewayContext, JsonBody } from "../context.ts";
import { invalidRequest } from "../errors.ts";
import { factsOf } from "../request-log.ts";
import { modelNotFound, noAvailableBackend } from "../route-errors.ts";
import { sendError, settleHijacked } from "../send.ts";
import { validateChat } from "../validate-chat.ts";

/** POST /v1/chat/completions: validate, route, dispatch (streaming or not). */
export function registerChatRoute(app: FastifyInstance, context: GatewayContext): void {
  const { router, registry, stats, chat } = context;
  app.post("/v1/chat/completions", async (request, reply) => {
    stats.totalRequests++;
    setBudgetHeaders(reply.raw, context.budget);
    const parsed = request.body as JsonBody | undefined;
    if (parsed === undefined) return sendError(reply, invalidRequest("Request body is required", null, "invalid_json"));
    const problem = validateChat(parsed.value);
    if (problem) return sendError(reply, problem);
    const body = parsed.value as Record<string, unknown>;
    const model = body["model"] as string;
    const requirements = chatRequirements(body);
    factsOf(request.raw).model = model;
    const decision = router.decide(model, requirements, registry);
    if (decision.outcome === "unknown_model") return sendError(reply, modelNotFound(model, decision.available));
    if (decision.outcome === "unavailable") {
      const { error, headers } = noAvailableBackend(model, decision, "chat completions");
      return sendError(reply, error, headers);
    }
    reply.hijack();
    const maxTokens = body["max_tokens"];
    const run = chat.run(
      {
        requestId: String(request.id),
        facts: factsOf(request.raw),
        body,
        raw: parsed.raw,
        stream: body["stream"] === true,
        targets: decision.targets,
        reason: decision.reason,
        // The BPE count (what a cloud call will be billed on) only when a cloud backend may serve; else the rough one.
        estimatedTokens: decision.targets.some((target) => target.backend.settings.kind === "cloud")
          ? countPromptTokens(body)
          : requirements.estimatedTokens,
        maxTokens: typeof maxTokens === "number" ? maxTokens : undefined,
      },
      reply.raw,
    );
    await settleHijacked(run, reply.raw, String(request.id), context.logger);
  });
}
