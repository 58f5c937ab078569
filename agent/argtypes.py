"""argparse value types shared by the `kzoo` subcommands: a bad value is a one-line usage error."""

from __future__ import annotations

import argparse
import math


def _number(text: str, kind: type, what: str):
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def positive_int(text: str) -> int:
    value = _number(text, int, "a whole number of at least 1")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    value = _number(text, int, "a whole number, 0 or more")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def sampler_seed(text: str) -> int:
    """A sampler seed: Optuna hands it to numpy, which takes 0 to 2**32 - 1."""
    value = _number(text, int, "a whole number from 0 to 4294967295")
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"must be from 0 to 4294967295 (2**32 - 1), got {value}")
    return value


def positive_float(text: str) -> float:
    value = _number(text, float, "a positive number")
    # nan <= 0 is False: checked apart, as inf is, which no timeout or budget can mean
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive, finite number, got {text!r}")
    return value
