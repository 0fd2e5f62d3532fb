"""JSON Schema dialects, applied when a request is built: OpenAI strict mode (``strict``) and
Gemini's OpenAPI subset (``gemini``); every lossy step is reported as ``schema_rewritten``."""
