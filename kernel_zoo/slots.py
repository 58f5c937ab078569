"""Slot words zeroed once, for split kernels that tag them with their launch's epoch.

A split-row kernel's programs hand each other their slices' statistics through int64 slot words.
Words zeroed before every call cost a fill kernel that the split kernel starts after (1.2-2.3 us
of add + RMSNorm at 256x65536 float32 on an H200, GPU round 456). With the norm template's
`epoch_slots` the words are zeroed once instead: the kernel takes a ticket from a counter kept in
the word before the slots, derives the launch's epoch from it and tags every word it writes, and
a reader waits for its partners' words to carry this launch's tag (templates/_model.jinja,
`epoch_slots()`). That holds only while launches on one buffer are ordered, so the buffers are
kept per stream, which a candidate may not name (the verifier's guards keep kernels on the
current stream): this module is the trusted side of it, and `epoch_words` is all a candidate may
use of it (verifier.guards).

The contract a kernel using the words keeps: each launch writes every one of the `n` slots once
(so a stale word carries the previous launch's tag, never this one's), all with one tag, which it
takes by the buffer's scheme (`tag`):
- "ticket": every program takes a ticket from the counter; a launch's tickets are one block of
  65536 (the program with the block's last ticket pads the counter to the next block), and the
  block's index + 1 is the tag. All programs of a launch add to one word at its start.
- "own": every program reads the word of its own first slot, which the previous launch on the
  buffer wrote with that launch's tag (0 in a fresh buffer), and tags with the next value. No
  counter, no atomics: one load a program, at an address no other program touches.
The two schemes never share a buffer: a tag the one derives may be the other's stale word.
"""

from __future__ import annotations

import torch

TAGS = ("ticket", "own")
# (device index, stream, n, tag scheme) -> counter and n slot words, for calls; (device index, n,
# tag scheme) -> a spare for the next CUDA graph capture; the buffers captures took, kept while
# their graphs may replay
_BUFFERS: dict[tuple[int, int, int, str], torch.Tensor] = {}
_SPARES: dict[tuple[int, int, str], torch.Tensor] = {}
_CAPTURED: list[torch.Tensor] = []


def epoch_words(n: int, device: torch.device, tag: str = "ticket") -> torch.Tensor:
    """`n` int64 slot words on `device`, the ticket counter in the word before the first, for
    kernels of the tag scheme `tag` (module docstring).

    A call takes the buffer of its device, current stream, `n` and scheme, zeroed when made. A
    CUDA graph capture takes a spare made at an earlier call with the same `n` and scheme (zeroed,
    and the stream synchronized, before any graph replays it) and keeps it: a graph's replays are
    ordered as a stream's launches are. A capture with no spare, and a device other than a GPU
    (Triton's interpreter, the meta device), get words zeroed for this call alone, as without
    epochs."""
    if n < 1:
        raise ValueError(f"epoch_words: n must be at least 1, got {n}")
    if tag not in TAGS:
        raise ValueError(f"epoch_words: tag must be one of {TAGS}, got {tag!r}")
    if device.type != "cuda":
        return torch.zeros(n + 1, dtype=torch.int64, device=device)[1:]
    index = device.index if device.index is not None else torch.cuda.current_device()
    if torch.cuda.is_current_stream_capturing():
        spare = _SPARES.pop((index, n, tag), None)
        if spare is None:  # words the graph zeroes on each replay, counter and all
            return torch.zeros(n + 1, dtype=torch.int64, device=device)[1:]
        _CAPTURED.append(spare)
        return spare[1:]
    stream = torch.cuda.current_stream(device)
    key = (index, stream.cuda_stream, n, tag)
    words = _BUFFERS.get(key)
    if words is None:
        words = _BUFFERS[key] = torch.zeros(n + 1, dtype=torch.int64, device=device)
    if (index, n, tag) not in _SPARES:
        _SPARES[index, n, tag] = torch.zeros(n + 1, dtype=torch.int64, device=device)
        stream.synchronize()  # zeroed before any graph that takes it replays, on any stream
    return words[1:]
