"""Where the hosted drivers send when distill.base_url is unset (a leaf: the drivers and their
registry both read it, so neither imports the other for it).

Explicit, so the SDKs' own environment variables (ANTHROPIC_BASE_URL, OPENAI_BASE_URL) never
redirect us.
"""

from __future__ import annotations

ANTHROPIC_DEFAULT_URL = "https://api.anthropic.com"
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
OLLAMA_DEFAULT_URL = "http://localhost:11434/v1"
