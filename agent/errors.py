"""Errors the CLI turns into a one-line message; kept free of heavy imports."""


class PlanError(Exception):
    """The op cannot be planned onto a template; the message says what was found."""


class UsageError(Exception):
    """A flag's value that the command cannot use (found past argparse); the message says why."""


class OptimizeError(Exception):
    """The search cannot go on; the message says why."""


class ClusterError(Exception):
    """Ray could not be started or joined; the message says what to check."""


class LLMSetupError(Exception):
    """The LLM proposer cannot start (no API key, no endpoint); the message says what to set."""


class OptimizeInterrupted(KeyboardInterrupt):
    """Ctrl-C during a search: what the study holds now, for the CLI to say before it exits."""

    def __init__(self, study: str | None, storage: str, completed: int, best: str | None,
                 payload: dict | None = None, kept: str | None = None):
        super().__init__(study)
        self.study, self.storage, self.completed, self.best = study, storage, completed, best
        # what `--json` gets instead of the finished run's object: marked "interrupted"
        self.payload = payload or {}
        # what is kept, in words, where there is no study (an LLM run on its own)
        self.kept = kept
