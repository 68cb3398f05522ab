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
# dashboard_max_clients = 100    # dashboard sockets at once; more get 503
# answer_limit_bytes = 268435456 # the most one backend answer may bring; more fails that attempt

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
type = "ollama"                  # ollama | vllm | llamacpp | lmstudio | exo | generic | openai | anthropic | google
priority = 1                     # lower is preferred
# zone = "restricted"            # restricted | open (default: restricted for local types, open for cloud)
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
# organization = "org-..."       # optional: OpenAI-Organization header
# project = "proj_..."           # optional: OpenAI-Project header

# [[backends]]                   # Anthropic's Messages API, translated to and from OpenAI's format
# name = "claude"
# url = "https://api.anthropic.com"
# type = "anthropic"
# api_key_env = "ANTHROPIC_API_KEY"
# priority = 90
# default_max_tokens = 4096      # max_tokens when a client sends none (Anthropic requires one)

# [[backends]]                   # Google's Gemini API, translated; the key goes in x-goog-api-key, never the URL
# name = "gemini"
# url = "https://generativelanguage.googleapis.com"
# type = "google"
# api_key_env = "GEMINI_API_KEY"
# priority = 90

# [budget]                       # spend limits for cloud backends (local backends cost 0)
# monthly_limit_usd = 100
# daily_limit_usd = 10           # optional
# soft_limit_percent = 75        # above this, local backends are tried before cloud ones
# hard_limit_action = "block_cloud"  # warn | block_cloud | block_all
# state_file = "gateway-spend.json"  # spend across restarts, relative to this file

# [auth]                         # keys: off unless set (then every route but /health needs one)
# master_key_env = "GATEWAY_MASTER_KEY"  # the variable holding the master key (16+ characters)
# public_metrics = false         # true: /metrics and the dashboard without the master key

# [state]                        # keys, limits and spend; "redis" lets replicas act as one
# backend = "embedded"           # embedded (one process, a file) | redis
# path = "gateway-state.json"    # embedded: relative to this file
# url = "redis://127.0.0.1:6379" # redis
# key_prefix = "switchboard:"    # redis

# [pricing."my-finetune"]        # USD per million tokens; overrides or adds to the built-in prices
# input_usd_per_mtok = 3
# output_usd_per_mtok = 15

# [lifecycle]                    # model load / unload / migrate operations (Ollama backends)
# operation_timeout_seconds = 3600  # an operation holding a backend longer than this fails and is aborted
`;
