/** The commented example written by `config init`; examples/gateway.toml holds the same text. */
export const EXAMPLE_CONFIG = `# Switchboard gateway configuration (TOML). Sections and keys follow Nexus's nexus.toml, so a Nexus file loads
# unchanged; unknown keys are errors (with a suggestion), not silently ignored.
# Environment overrides: NEXUS_CONFIG (this file), NEXUS_HOST, NEXUS_PORT, NEXUS_LOG_LEVEL, NEXUS_LOG_FORMAT.
# Command-line flags win over the environment, which wins over this file.

[server]
host = "127.0.0.1"               # address to listen on
port = 8000
request_timeout_seconds = 300    # per backend attempt: until response headers, and between streamed chunks
body_limit_bytes = 10485760      # larger request bodies get 413
client_timeout_seconds = 30      # a client must send its whole request within this time

[health_check]
enabled = true
interval_seconds = 30            # every backend is probed concurrently at this interval
timeout_seconds = 5
failure_threshold = 3            # consecutive failures before a backend turns unhealthy
recovery_threshold = 2           # consecutive successes before it turns healthy again

[routing]
strategy = "smart"               # smart | round_robin | priority_only | random
max_retries = 2                  # failover attempts on other backends after the first one fails

[routing.weights]                # smart strategy: how much priority, load and probe latency count
priority = 50
load = 30
latency = 20

[routing.aliases]                # requested name = model sent to the backend (up to 3 hops; cycles are rejected)
"gpt-3.5-turbo" = "llama3.2:3b"

[routing.fallbacks]              # tried in order when no backend can serve the model, or every attempt failed
"llama3.1:70b" = ["llama3.1:8b", "llama3.2:3b"]

# [[routing.policies]]           # first match wins
# model_pattern = "internal-*"
# privacy = "restricted"         # restricted: only backends with zone = "restricted" serve these models
# min_tier = 2                   # backends with a lower tier are excluded

[logging]
level = "info"                   # trace | debug | info | warn | error | fatal | silent
# format = "json"                # json | pretty (default: pretty on a terminal, json otherwise)

# Under npm start this backend is a SIMULATOR unless a real Ollama already listens on 11434: the testkit's fake
# Ollama, with canned answers ("echo: <your message>") and the models the docs use (llama3.2:3b, llama3.1:8b,
# nomic-embed-text). Its log lines are prefixed [ollama-simulator].
[[backends]]
name = "local-ollama"            # unique; the identity shown in X-Gateway-Backend, stats and logs
url = "http://127.0.0.1:11434"   # base URL without /v1
type = "ollama"                  # ollama | vllm | llamacpp | lmstudio | exo | generic | openai
priority = 1                     # lower is preferred
# zone = "restricted"            # restricted | open (default: restricted for local types, open for openai)
# tier = 1                       # capability tier 1-5
# max_concurrent = 4             # requests in flight at once; more are routed elsewhere

# [[backends]]
# name = "gpu-box"
# url = "http://192.168.1.20:8000"
# type = "vllm"
# priority = 2
#
# [[backends.models]]            # optional static facts, merged over what the backend reports
# id = "meta-llama/Llama-3.1-8B-Instruct"
# context_length = 131072
# capabilities = ["completion", "tools", "json"]

# [[backends]]
# name = "openai"
# url = "https://api.openai.com"
# type = "openai"
# api_key_env = "OPENAI_API_KEY" # the key is read from this environment variable, never from clients
# priority = 90
`;
