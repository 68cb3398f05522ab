// The Redis store's atomic steps, as Lua: each runs as one command, so replicas never read-then-write a limit. The
// token-bucket arithmetic is bucket.ts's (GCRA over one stored time), on Redis's own clock (TIME): replicas whose
// clocks disagree still share one window. Floats travel as strings (Redis turns Lua numbers into integers).

const CLOCK = `
local clock = redis.call("TIME")
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;

/**
 * KEYS: requests bucket, tokens bucket, slots (sorted set of leases), the key's spend in its budget period.
 * ARGV: rpm (0 = none), tpm (0 = none), max concurrent (0 = none), lease id, lease ttl ms, budget USD ("" = none),
 * window ms. Returns {refusal ("" when admitted), retry after ms, requests backlog, tokens backlog, spend}.
 */
export const ADMIT = `${CLOCK}
local window = tonumber(ARGV[7])
local spend = tonumber(redis.call("GET", KEYS[4]) or "0")
if ARGV[6] ~= "" and spend >= tonumber(ARGV[6]) then
  return {"budget", "0", "", "", tostring(spend)}
end
local function step(key, limit, charge)
  local interval = window / limit
  local tat = tonumber(redis.call("GET", key) or "0")
  local backlog = math.max(tat - now, 0)
  local needed = backlog + interval
  if needed > window then return false, backlog, needed - window end
  return true, backlog + charge * interval, 0
end
local rpm = tonumber(ARGV[1])
local tpm = tonumber(ARGV[2])
local rOk, rBacklog, rRetry = true, nil, 0
local tOk, tBacklog, tRetry = true, nil, 0
if rpm > 0 then rOk, rBacklog, rRetry = step(KEYS[1], rpm, 1) end
if tpm > 0 then tOk, tBacklog, tRetry = step(KEYS[2], tpm, 0) end
local rb = rBacklog and tostring(rBacklog) or ""
local tb = tBacklog and tostring(tBacklog) or ""
if not rOk then return {"requests", tostring(math.ceil(rRetry)), rb, tb, tostring(spend)} end
if not tOk then return {"tokens", tostring(math.ceil(tRetry)), rb, tb, tostring(spend)} end
local max = tonumber(ARGV[3])
if max > 0 then
  local ttl = tonumber(ARGV[5])
  redis.call("ZREMRANGEBYSCORE", KEYS[3], "-inf", now)
  if redis.call("ZCARD", KEYS[3]) >= max then return {"concurrency", "1000", rb, tb, tostring(spend)} end
  redis.call("ZADD", KEYS[3], now + ttl, ARGV[4])
  redis.call("PEXPIRE", KEYS[3], ttl)
end
if rpm > 0 then redis.call("SET", KEYS[1], tostring(now + rBacklog), "PX", math.max(1, math.ceil(rBacklog))) end
return {"", "0", rb, tb, tostring(spend)}
`;

/**
 * KEYS: tokens bucket, slots, usage hash, the key's record, then one spend counter per period.
 * ARGV: lease id, tpm (0 = none), tokens, prompt tokens, completion tokens, cost USD, window ms, then one retention
 * (seconds, 0 = forever) per spend counter. Counts nothing for a key revoked meanwhile.
 */
export const SETTLE = `
redis.call("ZREM", KEYS[2], ARGV[1])
if redis.call("EXISTS", KEYS[4]) == 0 then return 0 end
local tpm = tonumber(ARGV[2])
local tokens = tonumber(ARGV[3])
if tpm > 0 and tokens > 0 then
  ${CLOCK}
  local interval = tonumber(ARGV[7]) / tpm
  local tat = tonumber(redis.call("GET", KEYS[1]) or "0")
  local backlog = math.max(tat - now, 0) + tokens * interval
  redis.call("SET", KEYS[1], tostring(now + backlog), "PX", math.max(1, math.ceil(backlog)))
end
redis.call("HINCRBY", KEYS[3], "requests", 1)
redis.call("HINCRBY", KEYS[3], "prompt_tokens", ARGV[4])
redis.call("HINCRBY", KEYS[3], "completion_tokens", ARGV[5])
if tonumber(ARGV[6]) > 0 then
  for i = 5, #KEYS do
    redis.call("INCRBYFLOAT", KEYS[i], ARGV[6])
    local keep = tonumber(ARGV[i + 3])
    if keep > 0 then redis.call("EXPIRE", KEYS[i], keep) end
  end
end
return 1
`;
