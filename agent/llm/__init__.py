"""The LLM proposer: OpenAI-compatible models write kernels and templates from verifier feedback.

Off unless `--llm MODEL` is given. Each round sends one prompt (agent/llm/prompts/*.jinja) for
several samples; every answer is parsed (agent.llm.answers) into a full candidate module or a
template with a declared parameter space, verified on the Ray pool like any candidate (templates
through their own Optuna study), and summarized (agent.llm.feedback) into the next round's prompt.
Everything is kept under $KZOO_HOME/runs/<id>/ (agent.llm.runs).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import Any

DEFAULT_ROUNDS = 3
DEFAULT_SAMPLES = 2
DEFAULT_BUDGET = 200_000


@dataclass(frozen=True)
class LLMSettings:
    """What the proposer needs to reach a model and how much of it to use; saved with each run."""

    model: str
    base_url: str | None = None  # None: the openai package's default (api.openai.com)
    rounds: int = DEFAULT_ROUNDS
    samples: int = DEFAULT_SAMPLES
    budget_tokens: int = DEFAULT_BUDGET
    request_timeout_s: float = 300.0
    max_attempts: int = 5  # per request: the first try and its retries on 429, 5xx and timeouts
    backoff_s: float = 1.0  # first retry waits this long, doubling after each failure
    max_backoff_s: float = 60.0
    temperature: float | None = None  # None: the server's default

    def public(self) -> dict[str, Any]:
        """The settings as saved with a run (no key: it is never stored)."""
        return asdict(self)


def api_key(settings: LLMSettings) -> str:
    """OPENAI_API_KEY; a server given by URL may take none, so a placeholder is sent there."""
    from agent.errors import LLMSetupError

    key = os.environ.get("OPENAI_API_KEY")
    if key:
        return key
    if settings.base_url:
        return "none"  # vLLM, Ollama and the like accept any key unless configured otherwise
    raise LLMSetupError(
        "--llm needs OPENAI_API_KEY for the default endpoint (api.openai.com); set it, or point "
        "--llm-base-url / OPENAI_BASE_URL at an OpenAI-compatible server"
    )


def resolve_base_url(flag: str | None) -> str | None:
    return flag or os.environ.get("OPENAI_BASE_URL") or None


def check_base_url(base_url: str | None) -> None:
    """An endpoint that is no http(s) URL is an LLMSetupError now: the client would retry it to
    the end of its budget after the template search and the run would end as if it had gone
    well."""
    from urllib.parse import urlsplit

    from agent.errors import LLMSetupError

    if base_url is None:
        return
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise LLMSetupError(f"--llm-base-url / OPENAI_BASE_URL {base_url!r} is not an http(s) URL; "
                            "give the server's address, e.g. http://127.0.0.1:8000/v1")
