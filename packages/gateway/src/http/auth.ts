import type { FastifyInstance } from "fastify";
import { geminiCallOf } from "../inbound/gemini/path.ts";
import type { JsonBody } from "../request/body.ts";
import { envelopeOf } from "./api-envelope.ts";
import type { KeyGate } from "./key-gate.ts";
import { modelOf } from "./key-gate.ts";
import { sendError } from "./send.ts";

/**
 * Authentication and per-key limits as two hooks, so that every route — those registered later included — passes
 * through them: onRequest checks the key against the route's access, preHandler (once the body is read) applies the
 * key's model list and limits to any request whose JSON body names a model (key-gate.ts).
 */
export function registerAuth(app: FastifyInstance, gate: KeyGate): void {
  app.addHook("onRequest", async (request, reply) => {
    const refusal = await gate.authenticate(request.raw, request.routeOptions.url);
    if (refusal === undefined) return;
    sendError(reply, refusal.error, refusal.headers, envelopeOf(request));
    return reply;
  });

  app.addHook("preHandler", async (request, reply) => {
    // Gemini's API names the model in the path of its calls (a GET there reads a model's entry, whose id may hold a
    // colon).
    const inPath = request.method === "POST" ? geminiCallOf(request.url)?.model : undefined;
    const model = modelOf((request.body as JsonBody | undefined)?.value) ?? inPath;
    const refusal = await gate.admit(request.raw, reply.raw, model);
    if (refusal === undefined) return;
    sendError(reply, refusal.error, refusal.headers, envelopeOf(request, model));
    return reply;
  });
}
