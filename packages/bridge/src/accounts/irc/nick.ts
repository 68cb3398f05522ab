// A taken nick: try Nick_, Nick__, Nick___ (what most clients do), then Nick plus digits, so registration always
// finishes; the connection takes Nick back when its holder leaves.

export function alternativeNick(nick: string, attempt: number): string {
  if (attempt <= 3) return nick + "_".repeat(attempt);
  // Servers limit nicks to 9 (RFC 1459) to 30+ characters; keep the digits inside the shortest limit.
  return `${nick.slice(0, 5)}${String(attempt * 97 + Math.floor(Math.random() * 1000)).slice(-4)}`;
}
