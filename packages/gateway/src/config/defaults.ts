/** What serving with no configuration file means: 127.0.0.1:8000 in front of a local Ollama. */
export function defaultConfigInput(): Record<string, unknown> {
  return {
    server: { host: "127.0.0.1", port: 8000 },
    backends: [{ name: "local-ollama", url: "http://127.0.0.1:11434", type: "ollama" }],
  };
}
