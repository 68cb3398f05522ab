/** A configuration problem that stops start-up; `message` is the one line printed to stderr. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
