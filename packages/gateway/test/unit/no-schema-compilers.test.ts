// The HTTP servers load no JSON-schema compiler (@switchboard/common's noSchemaCompilers): a route that declares a
// schema must fail plainly at start-up rather than go unvalidated.
import assert from "node:assert/strict";
import { it } from "node:test";
import { noSchemaCompilers } from "@switchboard/common";
import Fastify from "fastify";

it("a route with a body or response schema fails at ready(), naming why", async () => {
  for (const schema of [{ body: { type: "object" } }, { response: { 200: { type: "object" } } }]) {
    const app = Fastify({ schemaController: { compilersFactory: noSchemaCompilers("This server") } });
    app.post("/x", { schema }, async () => ({}));
    await assert.rejects(async () => {
      await app.ready();
    }, /This server loads no JSON-schema compiler/);
    await app.close();
  }
});

it("routes without schemas serve as usual", async () => {
  const app = Fastify({ schemaController: { compilersFactory: noSchemaCompilers("This server") } });
  app.post("/x", async (request) => ({ got: request.body }));
  const response = await app.inject({ method: "POST", url: "/x", payload: { a: 1 } });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(response.json(), { got: { a: 1 } });
  await app.close();
});
