"""A chat-completions client for any OpenAI-compatible server: our own retries, a token budget.

The openai package's own retries are turned off (max_retries=0) so that every attempt, its wait
and its cause are ours to count and record: 429 and 5xx answers and timeouts are retried with
exponential backoff (a server's Retry-After is honoured, up to max_backoff_s); other errors (a bad
key, an unknown model) stop at once. The budget is checked before each round (a round's samples
are sent together) and before each retry; requests already in flight may end past it, and are
counted.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from agent.llm import LLMSettings, api_key


class RequestFailed(Exception):
    """A request that will not succeed: retries spent, or an error retrying cannot fix."""

    def __init__(self, message: str, *, retryable: bool, attempts: int):
        super().__init__(message)
        self.retryable = retryable
        self.attempts = attempts


class BudgetExhausted(Exception):
    """The token budget is spent; no further request is sent."""


@dataclass
class Reply:
    text: str
    prompt_tokens: int
    completion_tokens: int
    attempts: int
    seconds: float
    finish_reason: str | None = None
    usage_reported: bool = True  # False: the server sent no usage and tokens were estimated
    errors: list[str] = field(default_factory=list)  # the failed attempts before this one

    def record(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "attempts": self.attempts, "seconds": round(self.seconds, 3),
            "finish_reason": self.finish_reason, "usage_reported": self.usage_reported,
            "retried_after": self.errors,
        }


class TokenBudget:
    """Tokens used so far (prompt and completion, as the server reports them) against a limit."""

    def __init__(self, limit: int):
        self.limit = limit
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.requests = 0
        self.failed_attempts = 0
        self._lock = threading.Lock()

    @property
    def used(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def exhausted(self) -> bool:
        return self.used >= self.limit

    def charge(self, prompt: int, completion: int) -> None:
        with self._lock:
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            self.requests += 1

    def count_failure(self) -> None:
        with self._lock:
            self.failed_attempts += 1

    def record(self) -> dict[str, Any]:
        return {
            "limit": self.limit, "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens, "total_tokens": self.used,
            "requests": self.requests, "failed_attempts": self.failed_attempts,
        }


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)  # ~4 characters a token: only where a server reports no usage


class ChatClient:
    def __init__(self, settings: LLMSettings, budget: TokenBudget | None = None):
        import openai

        self.settings = settings
        self.budget = budget or TokenBudget(settings.budget_tokens)
        self._openai = openai
        self._client = openai.OpenAI(
            api_key=api_key(settings), base_url=settings.base_url,
            timeout=settings.request_timeout_s, max_retries=0,
        )

    def complete(self, messages: list[dict[str, str]], admitted: bool = False) -> Reply:
        """One answer to `messages`, retried on rate limits, server errors and timeouts.

        `admitted`: the caller checked the budget for this request already (a round's samples are
        admitted together, so how many are sent does not depend on which reply lands first);
        retries are checked here either way.
        """
        errors: list[str] = []
        started = time.monotonic()
        for attempt in range(1, self.settings.max_attempts + 1):
            if (attempt > 1 or not admitted) and self.budget.exhausted:
                raise BudgetExhausted(
                    f"token budget spent: {self.budget.used} of {self.budget.limit} tokens used"
                )
            try:
                response = self._send(messages)
            except Exception as exc:
                retryable, wait_hint, text = self._classify(exc)
                if not retryable:
                    raise RequestFailed(text, retryable=False, attempts=attempt) from None
                errors.append(text)
                self.budget.count_failure()
                if attempt == self.settings.max_attempts:
                    raise RequestFailed(
                        f"{text} (gave up after {attempt} attempts)", retryable=True,
                        attempts=attempt,
                    ) from None
                time.sleep(self._backoff(attempt, wait_hint))
                continue
            if not hasattr(response, "choices"):  # the client hands a non-JSON body back as is
                raise RequestFailed(self._not_an_api(f"a {type(response).__name__} starting "
                                                     f"{str(response)[:60]!r}"),
                                    retryable=False, attempts=attempt)
            return self._reply(response, messages, attempt, time.monotonic() - started, errors)
        raise AssertionError("unreachable: the loop returns or raises")

    def _not_an_api(self, what: str) -> str:
        """Why an answer shows the server is no chat-completions endpoint, and what to check:
        a wrong base URL (a web UI's page, a plain HTTP server) answered."""
        return (f"{self.settings.base_url or 'the OpenAI API'} answered with {what}, not a chat "
                "completion: check --llm-base-url (an OpenAI-compatible endpoint's, which usually "
                "ends in /v1)")

    def _send(self, messages: list[dict[str, str]]):
        extra: dict[str, Any] = {}
        if self.settings.temperature is not None:
            extra["temperature"] = self.settings.temperature
        return self._client.chat.completions.create(
            model=self.settings.model, messages=messages, **extra,
        )

    def _backoff(self, attempt: int, wait_hint: float | None) -> float:
        wait = self.settings.backoff_s * 2 ** (attempt - 1)
        if wait_hint is not None:
            wait = max(wait, wait_hint)
        return min(wait, self.settings.max_backoff_s)

    def _classify(self, exc: Exception) -> tuple[bool, float | None, str]:
        """(retry it?, the server's Retry-After in seconds, a one-line description)."""
        openai = self._openai
        if isinstance(exc, openai.APITimeoutError):
            return True, None, f"timed out after {self.settings.request_timeout_s:.0f} s"
        if isinstance(exc, openai.APIConnectionError):
            return True, None, f"cannot reach {self.settings.base_url or 'the OpenAI API'}: {exc}"
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            hint = _retry_after(exc.response.headers.get("retry-after"))
            detail = _error_detail(exc)
            if status == 501:  # no POST at all: a plain web server, not an LLM endpoint
                return False, None, self._not_an_api(f"HTTP 501 ({detail})")
            if status == 429 or status >= 500:
                return True, hint, f"HTTP {status}: {detail}"
            if status in (401, 403):
                return False, None, (f"HTTP {status}: {detail}; check OPENAI_API_KEY for "
                                     f"{self.settings.base_url or 'api.openai.com'}")
            if status == 404:
                return False, None, (f"HTTP 404: {detail}; check the model name "
                                     f"{self.settings.model!r} and the base URL (it usually ends "
                                     "in /v1)")
            return False, None, f"HTTP {status}: {detail}"
        if isinstance(exc, openai.APIResponseValidationError):
            return False, None, f"the server's answer is not a chat completion: {exc}"
        if isinstance(exc, json.JSONDecodeError):
            return False, None, self._not_an_api(f"a body that is not JSON ({exc})")
        return False, None, f"{type(exc).__name__}: {exc}"

    def _reply(self, response, messages, attempts: int, seconds: float,
               errors: list[str]) -> Reply:
        choices = getattr(response, "choices", None) or []
        message = choices[0].message if choices else None
        text = (getattr(message, "content", None) or "") if message is not None else ""
        finish = choices[0].finish_reason if choices else None
        usage = getattr(response, "usage", None)
        if usage is not None and usage.prompt_tokens is not None:
            prompt, completion, reported = usage.prompt_tokens, usage.completion_tokens or 0, True
        else:
            prompt = _estimate_tokens("".join(m["content"] for m in messages))
            completion, reported = _estimate_tokens(text), False
        self.budget.charge(prompt, completion)
        return Reply(text, prompt, completion, attempts, seconds, finish, reported, errors)


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: rare from these servers; the exponential backoff stands


def _error_detail(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
    return str(getattr(exc, "message", exc))[:300]
