// Form-encoded posts, as matterbabble (Discourse <-> Matterbridge) sends them: aiohttp's `data={...}` is
// application/x-www-form-urlencoded with `+` for spaces, a bearer token, and no charset. Same fields and limits as JSON.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TOKEN, useFourAccounts } from "./four-accounts.ts";
import { http, readMessages } from "./helpers.ts";

const FORM = "application/x-www-form-urlencoded";

describe("api account form posts", () => {
  const { url, drain } = useFourAccounts();
  const postForm = (account: string, body: string, headers: Record<string, string> = {}) =>
    http(`${url(account)}/api/message`, { method: "POST", headers: { "content-type": FORM, ...headers }, body });
  const expect400 = async (answer: { status: number; body: string }, pattern: RegExp) => {
    assert.equal(answer.status, 400, answer.body);
    assert.match((JSON.parse(answer.body) as { message: string }).message, pattern);
  };

  it("accepts a post exactly as matterbabble sends it and delivers it", async () => {
    await drain();
    // What aiohttp puts on the wire for matterbabble's send({"text", "username", "userid", "avatar", "gateway"}).
    const body = new URLSearchParams({
      text: "hello world & more: 100% ünïcode",
      username: "alice",
      userid: "42",
      avatar: "https://forum.example/user_avatar/forum.example/alice/128/1_2.png",
      gateway: "gw",
    }).toString();
    assert.match(body, /text=hello\+world\+%26\+more%3A\+100%25\+%C3%BC/);
    const answer = await postForm("locked", body, {
      authorization: `Bearer ${TOKEN}`,
      "user-agent": "Matterbabble/1.0.0",
      accept: "*/*",
      "accept-encoding": "gzip, deflate",
    });
    assert.equal(answer.status, 200, answer.body);
    const echoed = JSON.parse(answer.body);
    assert.equal(echoed.text, "hello world & more: 100% ünïcode");
    assert.equal(echoed.account, "api.locked");
    const [received] = await readMessages(url("b"));
    assert.equal(received?.text, "hello world & more: 100% ünïcode");
    assert.equal(received?.username, "alice");
    assert.equal(received?.userid, "42");
    assert.equal(received?.avatar, "https://forum.example/user_avatar/forum.example/alice/128/1_2.png");
    await drain();
  });

  it("accepts a charset parameter and field names in any case, like the JSON body", async () => {
    const answer = await postForm("a", "Text=hi&USERNAME=bob&gateway=gw", { "content-type": `${FORM}; charset=UTF-8` });
    assert.equal(answer.status, 200, answer.body);
    assert.equal(JSON.parse(answer.body).username, "bob");
    await drain();
  });

  it("validates like JSON: missing gateway, empty text, bad event, Extra, repeated or too many fields", async () => {
    await expect400(await postForm("a", "text=x&username=u"), /"gateway" is missing/);
    await expect400(await postForm("a", "text=+&gateway=gw"), /text is empty/);
    await expect400(await postForm("a", ""), /empty body/);
    await expect400(await postForm("a", "text=x&gateway=gw&event=get_channel_members"), /cannot be posted/);
    await expect400(await postForm("a", "text=x&gateway=gw&Extra=%7B%7D"), /Extra cannot be sent in a form/);
    await expect400(await postForm("a", "text=x&text=y&gateway=gw"), /"text" is given more than once/);
    await expect400(await postForm("a", `text=x&gateway=gw${"&a=1".repeat(63)}`), /more than 64 fields/);
    await expect400(await postForm("a", `text=x&gateway=gw&username=${"n".repeat(1025)}`), /longer than 1024/);
  });

  it("keeps BodyLimit (413) and the token (401) for forms, and 415 for other types", async () => {
    const big = await postForm("small", `gateway=gw&text=${"x".repeat(2000)}`);
    assert.equal(big.status, 413);
    assert.match(JSON.parse(big.body).message, /BodyLimit is 1024 bytes/);
    assert.equal((await postForm("locked", "text=x&gateway=gw")).status, 401);
    const plain = await http(`${url("a")}/api/message`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "text=x&gateway=gw",
    });
    assert.equal(plain.status, 415);
  });
});
