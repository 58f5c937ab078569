"""Slot words zeroed once, for split kernels that tag them with their launch's epoch.

A split-row kernel's programs hand each other their slices' statistics through int64 slot words.
Words zeroed before every call cost a fill kernel that the split kernel starts after (1.2-2.3 us
of add + RMSNorm at 256x65536 float32 on an H200, GPU round 456). With the norm template's
`epoch_slots` the words are zeroed once instead: each program takes a ticket from its group's
counter, kept before the slots, derives the launch's epoch from it and tags every word it writes,
and a reader waits for its partners' words to carry this launch's tag (templates/_model.jinja,
`epoch_slots()`). A counter a group (each on a 128-byte line of its own), not one for the grid:
a grid's hundreds of atomics on one word queue at one L2 slice. That holds only while launches
on one buffer are ordered, so the buffers are kept per stream, which a candidate may not name
(the verifier's guards keep kernels on the current stream): this module is the trusted side of
it, and `epoch_words` is all a candidate may use of it (verifier.guards).

The contract a kernel using the words keeps: each launch runs `counters` groups whose programs
read only their own group's slots, writes every one of the `n` slots once (so a stale word
carries the previous launch's tag from the same group's counter, never this one's), and takes
each group's tickets as one block of 65536 from counter g, `LINE * (counters - g)` words before
the slots (the program with the block's last ticket pads the counter to the next block).
Buffers are kept by `layout` too (the split, say), so every launch on one buffer gives each slot
to the same group.
"""

from __future__ import annotations

import torch

LINE = 16  # int64 words from one counter to the next: a 128-byte line each

# (device index, stream, n, counters, layout) -> counters and n slot words, for calls; (device
# index, n, counters, layout) -> a spare for the next CUDA graph capture; the buffers captures
# took, kept while their graphs may replay
_BUFFERS: dict[tuple, torch.Tensor] = {}
_SPARES: dict[tuple, torch.Tensor] = {}
_CAPTURED: list[torch.Tensor] = []


def epoch_words(n: int, device: torch.device, counters: int = 1, layout: int = 0) -> torch.Tensor:
    """`n` int64 slot words on `device`, after `counters` ticket counters `LINE` words apart.

    A call takes the buffer of its device, current stream, `n`, `counters` and `layout`, zeroed
    when made. A CUDA graph capture takes a spare made at an earlier call with the same sizes
    (zeroed, and the stream synchronized, before any graph replays it) and keeps it: a graph's
    replays are ordered as a stream's launches are. A capture with no spare, and a device other
    than a GPU (Triton's interpreter, the meta device), get words zeroed for this call alone, as
    without epochs."""
    if n < 1 or counters < 1:
        raise ValueError(f"epoch_words: n and counters must be at least 1, got {n}, {counters}")
    head = LINE * counters
    if device.type != "cuda":
        return torch.zeros(head + n, dtype=torch.int64, device=device)[head:]
    index = device.index if device.index is not None else torch.cuda.current_device()
    sizes = (n, counters, layout)
    if torch.cuda.is_current_stream_capturing():
        spare = _SPARES.pop((index, *sizes), None)
        if spare is None:  # words the graph zeroes on each replay, counters and all
            return torch.zeros(head + n, dtype=torch.int64, device=device)[head:]
        _CAPTURED.append(spare)
        return spare[head:]
    stream = torch.cuda.current_stream(device)
    key = (index, stream.cuda_stream, *sizes)
    words = _BUFFERS.get(key)
    if words is None:
        words = _BUFFERS[key] = torch.zeros(head + n, dtype=torch.int64, device=device)
    if (index, *sizes) not in _SPARES:
        _SPARES[index, *sizes] = torch.zeros(head + n, dtype=torch.int64, device=device)
        stream.synchronize()  # zeroed before any graph that takes it replays, on any stream
    return words[head:]
