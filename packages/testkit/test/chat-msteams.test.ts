// The Teams simulator, checked with Microsoft's own Graph client (@microsoft/microsoft-graph-client, unmodified,
// baseUrl pointed at the simulator; its AuthenticationHandler attaches tokens to Graph's own hosts only, so a
// middleware of ours sets the Bearer header in front of its HTTPMessageHandler): the device-code sign-in and the
// refresh of the identity platform as its documentation describes them, then messages, replies, $expand=replies
// with paging by @odata.nextLink, updates and soft deletes, and Graph's errors as GraphErrors with their codes.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client, GraphError, HTTPMessageHandler, type Middleware } from "@microsoft/microsoft-graph-client";
import { startTeamsSimulator, suiteTeardown, type TeamsSimulator } from "../src/index.ts";

const teardown = suiteTeardown();

async function oauth(teams: TeamsSimulator, endpoint: string, form: Record<string, string>) {
  const response = await fetch(`${teams.url}/${teams.tenantId}/oauth2/v2.0/${endpoint}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Signs in a user with the device-code flow; returns its tokens. */
async function signIn(teams: TeamsSimulator, userId: string) {
  const code = await oauth(teams, "devicecode", { client_id: teams.clientId, scope: "offline_access User.Read" });
  assert.equal(code.status, 200);
  assert.match(String(code.body.message), /https:\/\/microsoft\.com\/devicelogin.*enter the code/);
  const grant = { grant_type: "urn:ietf:params:oauth:grant-type:device_code", client_id: teams.clientId };
  const pending = await oauth(teams, "token", { ...grant, device_code: String(code.body.device_code) });
  assert.deepEqual([pending.status, pending.body.error], [400, "authorization_pending"]);
  teams.identity.approve(String(code.body.user_code), userId);
  const tokens = await oauth(teams, "token", { ...grant, device_code: String(code.body.device_code) });
  assert.equal(tokens.status, 200);
  return tokens.body as { access_token: string; refresh_token: string; expires_in: number };
}

function graphClient(teams: TeamsSimulator, token: () => string): Client {
  const bearer: Middleware & { next?: Middleware } = {
    async execute(context) {
      const headers = new Headers(context.options?.headers as ConstructorParameters<typeof Headers>[0]);
      headers.set("Authorization", `Bearer ${token()}`);
      context.options = { ...context.options, headers };
      await bearer.next?.execute(context);
    },
    setNext(next) {
      bearer.next = next;
    },
  };
  return Client.initWithMiddleware({ baseUrl: `${teams.url}/`, middleware: [bearer, new HTTPMessageHandler()] });
}

describe("Teams simulator through @microsoft/microsoft-graph-client", () => {
  it("signs in with a device code, refreshes, and refuses what Microsoft refuses", async () => {
    const teams = await startTeamsSimulator(teardown);
    const bridge = teams.createBridgeUser("Bridge");
    const tokens = await signIn(teams, bridge.id);
    const me = await graphClient(teams, () => tokens.access_token)
      .api("/me")
      .get();
    assert.equal(me.id, bridge.id);
    const refreshed = await oauth(teams, "token", {
      grant_type: "refresh_token",
      client_id: teams.clientId,
      refresh_token: tokens.refresh_token,
    });
    assert.equal(refreshed.status, 200);
    const reused = await oauth(teams, "token", {
      grant_type: "refresh_token",
      client_id: teams.clientId,
      refresh_token: tokens.refresh_token,
    });
    assert.deepEqual([reused.status, reused.body.error], [400, "invalid_grant"]);
    const wrongClient = await oauth(teams, "devicecode", { client_id: "nope", scope: "User.Read" });
    assert.equal(wrongClient.body.error, "unauthorized_client");
    const wrongTenant = await fetch(`${teams.url}/nope/oauth2/v2.0/devicecode`, {
      method: "POST",
      body: new URLSearchParams({ client_id: teams.clientId, scope: "User.Read" }),
    });
    assert.match(
      String(((await wrongTenant.json()) as { error_description: string }).error_description),
      /AADSTS90002/,
    );
    teams.identity.expireAccessTokens();
    await assert.rejects(
      graphClient(teams, () => tokens.access_token)
        .api("/me")
        .get(),
      (error: GraphError) => {
        assert.ok(error instanceof GraphError);
        assert.equal(error.statusCode, 401);
        assert.equal(error.code, "InvalidAuthenticationToken");
        return true;
      },
    );
  });

  it("serves channel messages, replies, updates and soft deletes as Graph does", async () => {
    const teams = await startTeamsSimulator(teardown);
    const bridge = teams.createBridgeUser("Bridge");
    const ana = teams.createUser("Ana");
    const channel = teams.createChannel("General");
    const tokens = await signIn(teams, bridge.id);
    const client = graphClient(teams, () => tokens.access_token);
    const path = `/teams/${teams.teamId}/channels/${encodeURIComponent(channel)}/messages`;

    const rootByAna = ana.say(channel, "<p>hello</p>");
    const posted = await client.api(path).post({ body: { contentType: "html", content: "<p>hi &amp; welcome</p>" } });
    assert.equal(posted.from.user.id, bridge.id);
    const reply = await client.api(`${path}/${rootByAna}/replies`).post({ body: { content: "thanks" } });
    assert.equal(reply.replyToId, rootByAna);
    await client.api(`${path}/${posted.id}`).patch({ body: { contentType: "html", content: "<p>edited</p>" } });
    await client.api(`${path}/${rootByAna}/replies/${reply.id}/softDelete`).post({});
    await assert.rejects(
      client.api(`${path}/${rootByAna}`).patch({ body: { content: "not mine" } }),
      (e: GraphError) => {
        assert.equal(e.statusCode, 403);
        return true;
      },
    );

    const first = await client.api(path).top(1).expand("replies").get();
    assert.equal(first.value.length, 1);
    assert.equal(first.value[0].id, rootByAna, "the thread with the newest activity (a deleted reply) first");
    assert.equal(first.value[0].replies[0].deletedDateTime !== null, true);
    assert.equal(first.value[0].replies[0].body.content, "");
    // The client treats only https:// addresses as absolute: the next page's link is followed by its path.
    const next = new URL(first["@odata.nextLink"]);
    const second = await client.api(`${next.pathname.replace(/^\/v1\.0/, "")}${next.search}`).get();
    assert.equal(second.value[0].id, posted.id);
    assert.equal(second.value[0].body.content, "<p>edited</p>");
    assert.ok(second.value[0].lastEditedDateTime > second.value[0].createdDateTime);
    assert.equal(second["@odata.nextLink"], undefined);

    await assert.rejects(client.api(path).top(51).get(), (e: GraphError) => e.statusCode === 400);
    await assert.rejects(
      client.api(`/teams/${teams.teamId}/channels/${encodeURIComponent("19:nope@thread.skype")}/messages`).get(),
      (e: GraphError) => e.statusCode === 404 && e.code === "NotFound",
    );
    teams.rateLimit(1, { retryAfter: 3 });
    await assert.rejects(client.api(path).get(), (e: GraphError) => {
      assert.equal(e.statusCode, 429);
      assert.equal(e.code, "TooManyRequests");
      assert.equal(e.headers?.get("Retry-After"), "3");
      return true;
    });
    assert.deepEqual(
      teams.sent.items.map((a) => a.kind),
      ["post", "reply", "edit", "delete"],
    );
    assert.deepEqual(teams.unhandled, []);
  });
});
