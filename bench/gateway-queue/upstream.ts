// The capacity-limited backend of bench/gateway-queue, as its own process (so the load generator does not delay its
// timers): every chat request is answered after SERVICE_MS (a timer, no CPU work). GET /peak returns the most requests
// it held at once since the last GET /peak, and resets it.
// `node --import tsx bench/gateway-queue/upstream.ts SERVICE_MS` prints "upstream listening on http://127.0.0.1:PORT".
import { createServer } from "node:http";

const serviceMs = Number(process.argv[2] ?? "20");
const ANSWER = Buffer.from(
  JSON.stringify({
    id: "chatcmpl-queue",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "queued-model",
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }),
);
const MODELS = Buffer.from(JSON.stringify({ object: "list", data: [{ id: "queued-model", object: "model" }] }));

let inFlight = 0;
let peak = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    if (req.url === "/v1/models") {
      res.writeHead(200, { "content-type": "application/json", "content-length": MODELS.length }).end(MODELS);
      return;
    }
    if (req.url === "/peak") {
      res.end(String(peak));
      peak = 0;
      return;
    }
    inFlight++;
    peak = Math.max(peak, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { "content-type": "application/json", "content-length": ANSWER.length }).end(ANSWER);
    }, serviceMs);
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(`upstream listening on http://127.0.0.1:${port}`);
});
for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => server.close(() => process.exit(0)));
