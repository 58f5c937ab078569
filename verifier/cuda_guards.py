"""Static guards for the CUDA C++ source a candidate builds with kernel_zoo.cuda_ext.

A small lexer (lines spliced, comments dropped, string and character literals skipped as wholes)
turns the source into tokens; the rules read tokens, so a forbidden name inside a comment or a
string is no finding and one split by a backslash-newline still is. The rules keep a .cu candidate
to what an honest kernel file needs: kernels, device helpers and `extern "C"` launchers.

- `#include` only of the headers in ALLOWED_INCLUDES, written `<name>` or `"name"` (among them
  kernel-zoo's `kzoo_sm90.cuh`, whose fixed PTX gives a Hopper kernel its warp-group MMAs, TMA and
  mbarriers without an `asm` of its own; cuda_ext writes it beside every build); preprocessor
  directives only from ALLOWED_DIRECTIVES (`#pragma` only `unroll`/`nounroll`/`once`); no token
  pasting (`##`), digraph `%:`, `_Pragma` or raw string literal: each could assemble a name that
  the token rules would not see.
- The CUDA runtime only through ALLOWED_CUDA_NAMES (error queries, function attributes, occupancy,
  device attributes and the types these take): no allocation, copies, streams, events, graphs,
  device resets or synchronization; no driver API (`cu[A-Z]...`), NVML or `__managed__` memory.
- No host escape: no calls into files, processes, the network, the environment, threads, signals,
  dynamic loading or clocks (HOST_ESCAPES), no `asm` (host asm reaches system calls; device code
  has intrinsics for cache hints), no `extern` other than `extern "C"` on a function definition and
  `extern __shared__`.
- Every kernel launch `<<<grid, block, smem, stream>>>` names its stream, and not as a literal (a
  literal 0 is the legacy default stream, outside the caller's stream).

It is a lint over tokens, not a C++ parser: the worker process, which may crash or be killed, stays
the boundary, as for Python candidates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ALLOWED_INCLUDES = {
    "cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "stdint.h", "cstdint",
    "math.h", "cmath", "float.h", "cfloat", "limits.h", "climits", "stddef.h", "cstddef",
    "type_traits", "cooperative_groups.h", "cooperative_groups/reduce.h", "math_constants.h",
    # kernel-zoo's own: fixed PTX for wgmma, mbarriers, TMA, clusters (kernel_zoo/cuda_sm90.py),
    # written by cuda_ext beside every build
    "kzoo_sm90.cuh",
}
ALLOWED_DIRECTIVES = {"include", "define", "undef", "if", "ifdef", "ifndef", "elif", "else",
                      "endif", "pragma", "error"}
ALLOWED_PRAGMAS = {"unroll", "nounroll", "once"}
ALLOWED_CUDA_NAMES = {
    "cudaError_t", "cudaSuccess", "cudaStream_t", "cudaGetLastError", "cudaPeekAtLastError",
    "cudaGetErrorString", "cudaFuncSetAttribute", "cudaFuncGetAttributes", "cudaFuncAttributes",
    "cudaFuncAttributeMaxDynamicSharedMemorySize",
    "cudaFuncAttributePreferredSharedMemoryCarveout", "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "cudaDeviceGetAttribute", "cudaGetDevice", "cudaDeviceAttr", "cudaErrorInvalidValue",
}
ALLOWED_CUDA_PREFIXES = ("cudaDevAttr",)
HOST_ESCAPES = {
    # files and processes
    "fopen", "freopen", "fdopen", "open", "openat", "creat", "unlink", "remove", "rename", "mkdir",
    "system", "popen", "fork", "vfork", "execl", "execlp", "execle", "execv", "execve", "execvp",
    "posix_spawn", "kill", "ptrace", "mmap", "mprotect", "syscall", "ifstream", "ofstream",
    "fstream", "FILE",
    # dynamic loading, environment, network
    "dlopen", "dlsym", "dlmopen", "getenv", "setenv", "putenv", "secure_getenv", "socket", "connect",
    "bind", "listen", "accept", "gethostbyname", "getaddrinfo",
    # threads, signals, process lifetime, clocks
    "thread", "pthread_create", "async", "signal", "sigaction", "atexit", "at_quick_exit", "exit",
    "_exit", "abort", "sleep", "usleep", "nanosleep", "clock_gettime", "gettimeofday", "time",
    "clock", "chrono", "rdtsc", "__rdtsc",
    # attributes that run code at load time or rebind symbols
    "constructor", "destructor", "alias", "weakref", "ifunc",
}
ASM = {"asm", "__asm__", "__asm", "__asm_volatile__"}
_RAW_PREFIXES = {"R", "LR", "uR", "UR", "u8R"}
_LITERAL_PREFIXES = {"L", "u", "U", "u8"}
_PUNCT = ("<<<", ">>>", "##", "%:", "::", "->", "<<", ">>")


@dataclass(frozen=True)
class Token:
    kind: str  # "id", "num", "str", "chr", "punct"
    text: str
    line: int
    first_on_line: bool


@dataclass(frozen=True)
class CudaFinding:
    exploit: str
    line: int  # line of the CUDA source (1-based)
    message: str

    def text(self) -> str:
        return f"CUDA line {self.line}: {self.message}"


class _LexError(Exception):
    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


def _splice(source: str) -> tuple[str, list[int]]:
    """Join backslash-newlines (as the preprocessor does) keeping each char's original line."""
    out, lines = [], []
    line, i = 1, 0
    while i < len(source):
        if source[i] == "\\" and source[i + 1:i + 2] == "\n":
            i += 2
            line += 1
            continue
        out.append(source[i])
        lines.append(line)
        if source[i] == "\n":
            line += 1
        i += 1
    return "".join(out), lines


def tokenize(source: str) -> list[Token]:
    text, lines = _splice(source.replace("\r\n", "\n"))
    tokens: list[Token] = []
    i, n = 0, len(text)
    last_line = 0

    def add(kind: str, start: int, end: int) -> None:
        nonlocal last_line
        line = lines[start]
        tokens.append(Token(kind, text[start:end], line, line != last_line))
        last_line = line

    def skip_quoted(start: int, quote: str) -> int:
        j = start + 1
        while j < n and text[j] != quote:
            if text[j] == "\n":
                raise _LexError(lines[start], "unterminated literal")
            j += 2 if text[j] == "\\" else 1
        if j >= n:
            raise _LexError(lines[start], "unterminated literal")
        return j + 1

    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise _LexError(lines[i], "unterminated comment")
            i = end + 2
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            if j < n and text[j] in "\"'" and word in _RAW_PREFIXES | _LITERAL_PREFIXES:
                if word in _RAW_PREFIXES:
                    raise _LexError(lines[i], "raw string literal: not allowed (it can hide code "
                                    "from the token rules)")
                end = skip_quoted(j, text[j])
                add("str" if text[j] == '"' else "chr", i, end)
                i = end
            else:
                add("id", i, j)
                i = j
        elif c.isdigit() or (c == "." and text[i + 1:i + 2].isdigit()):
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "._'" or
                             (text[j] in "+-" and text[j - 1] in "eEpP")):
                j += 1
            add("num", i, j)
            i = j
        elif c in "\"'":
            end = skip_quoted(i, c)
            add("str" if c == '"' else "chr", i, end)
            i = end
        else:
            for punct in _PUNCT:
                if text.startswith(punct, i):
                    add("punct", i, i + len(punct))
                    i += len(punct)
                    break
            else:
                add("punct", i, i + 1)
                i += 1
    return tokens


def _directive_findings(tokens: list[Token], start: int) -> tuple[list[CudaFinding], int]:
    """Check the directive whose '#' is tokens[start]; returns findings and the next index."""
    line = tokens[start].line
    end = start + 1
    while end < len(tokens) and tokens[end].line == line:
        end += 1
    body = tokens[start + 1:end]
    if not body:
        return [], end
    name = body[0].text
    findings = []
    if name not in ALLOWED_DIRECTIVES:
        findings.append(CudaFinding("forbidden-api", line, f"#{name}: allowed directives are "
                                    f"{', '.join(sorted(ALLOWED_DIRECTIVES))}"))
    elif name == "include":
        header = _include_name(body[1:])
        if header not in ALLOWED_INCLUDES:
            findings.append(CudaFinding("forbidden-import", line, f"#include of {header or '?'}; "
                                        f"allowed: {', '.join(sorted(ALLOWED_INCLUDES))}"))
    elif name == "pragma" and (len(body) < 2 or body[1].text not in ALLOWED_PRAGMAS):
        what = body[1].text if len(body) > 1 else ""
        findings.append(CudaFinding("forbidden-api", line, f"#pragma {what}: allowed pragmas are "
                                    f"{', '.join(sorted(ALLOWED_PRAGMAS))}"))
    return findings, (end if name == "include" else start + 1)


def _include_name(rest: list[Token]) -> str | None:
    if len(rest) == 1 and rest[0].kind == "str":
        return rest[0].text[1:-1]
    if len(rest) >= 3 and rest[0].text == "<" and rest[-1].text == ">":
        return "".join(t.text for t in rest[1:-1])
    return None


def _name_finding(tok: Token) -> CudaFinding | None:
    word = tok.text
    if word in ASM:
        return CudaFinding("forbidden-api", tok.line, f"{word}: inline assembly is not allowed "
                           "(use intrinsics such as __ldg, __ldcs, __stcs for cache hints)")
    if word == "_Pragma":
        return CudaFinding("forbidden-api", tok.line, "_Pragma: write #pragma unroll instead")
    if word == "__managed__":
        return CudaFinding("forbidden-api", tok.line, "__managed__ memory belongs to no candidate")
    if word in HOST_ESCAPES:
        return CudaFinding("host-escape", tok.line, f"uses {word}: host files, processes, "
                           "network, environment, threads, clocks and load-time code are off limits")
    if word.startswith("cuda") and word not in ALLOWED_CUDA_NAMES and \
            not word.startswith(ALLOWED_CUDA_PREFIXES):
        exploit = "side-stream" if word.startswith("cudaStream") else "forbidden-api"
        return CudaFinding(exploit, tok.line, f"uses {word}: allocation, copies, streams, events, "
                           "graphs and synchronization belong to the caller and the verifier")
    if re.fullmatch(r"cu[A-Z]\w*|nvml\w*", word):
        return CudaFinding("forbidden-api", tok.line, f"uses {word}: the CUDA driver API and NVML "
                           "are off limits")
    return None


def _extern_finding(tokens: list[Token], i: int) -> CudaFinding | None:
    """`extern` must be `extern __shared__` or `extern "C"` starting a function definition."""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if nxt is not None and nxt.text == "__shared__":
        return None
    if nxt is not None and nxt.kind == "str" and nxt.text == '"C"':
        for tok in tokens[i + 2:]:
            if tok.text == "{":
                # `extern "C" {` opens a block of declarations: their names would be looked up
                # outside the library.
                if tok is tokens[i + 2]:
                    break
                return None
            if tok.text == ";":
                break
    return CudaFinding("host-escape", tokens[i].line, "extern declaration: only `extern \"C\"` "
                       "function definitions and `extern __shared__` arrays are allowed (a "
                       "declaration binds a symbol from outside the source)")


def _launch_findings(tokens: list[Token], i: int) -> tuple[CudaFinding | None, int]:
    """tokens[i] is '<<<': the launch configuration must have four arguments, the last a name."""
    depth, args, current, j = 0, [], [], i + 1
    while j < len(tokens) and not (tokens[j].text == ">>>" and depth == 0):
        text = tokens[j].text
        if text in "([{":
            depth += 1
        elif text in ")]}":
            depth -= 1
        if text == "," and depth == 0:
            args.append(current)
            current = []
        else:
            current.append(tokens[j])
        j += 1
    args.append(current)
    line = tokens[i].line
    if len(args) != 4:
        return CudaFinding("side-stream", line, f"kernel launch with {len(args)} configuration "
                           "arguments: write <<<grid, block, smem, stream>>> with the stream the "
                           "entry point receives"), j + 1
    stream = args[3]
    if not stream or stream[0].kind != "id" or any(t.kind in ("num", "str") for t in stream) or \
            any(t.text == "(" for t in stream):
        return CudaFinding("side-stream", line, "kernel launch on "
                           f"'{' '.join(t.text for t in stream)}': pass the stream the entry "
                           "point receives, by name"), j + 1
    return None, j + 1


def check_cuda_source(source: str) -> list[CudaFinding]:
    """Every rule the CUDA source breaks; an empty list means nvcc may build it."""
    try:
        tokens = tokenize(source)
    except _LexError as exc:
        return [CudaFinding("syntax-error", exc.line, str(exc))]
    findings: list[CudaFinding] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.kind == "punct" and tok.text in ("#", "%:") and tok.first_on_line:
            if tok.text == "%:":
                findings.append(CudaFinding("forbidden-api", tok.line, "digraph %: is not allowed"))
            found, i = _directive_findings(tokens, i)
            findings.extend(found)
            continue
        if tok.kind == "punct" and tok.text in ("##", "%:"):
            findings.append(CudaFinding("forbidden-api", tok.line, f"{tok.text}: token pasting "
                                        "could assemble a forbidden name"))
        elif tok.kind == "punct" and tok.text == "<<<":
            finding, i = _launch_findings(tokens, i)
            if finding:
                findings.append(finding)
            continue
        elif tok.kind == "id":
            if tok.text == "extern":
                finding = _extern_finding(tokens, i)
            else:
                finding = _name_finding(tok)
            if finding:
                findings.append(finding)
        i += 1
    return findings
