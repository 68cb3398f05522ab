// Discord ids are snowflakes: milliseconds since the Discord epoch (2015-01-01) shifted left 22 bits, plus a counter.
// discord.js reads timestamps out of them (createdAt), so the fake makes real ones.
const DISCORD_EPOCH = 1_420_070_400_000n;
let counter = 0n;

export function snowflake(): string {
  counter = (counter + 1n) & 0xfffn;
  return String(((BigInt(Date.now()) - DISCORD_EPOCH) << 22n) | counter);
}
