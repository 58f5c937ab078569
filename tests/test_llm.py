"""The LLM proposer against a real chat-completions server on loopback (tests/llm_server.py):
answer parsing, the client's retries, timeouts and budget, and the whole optimize --llm flow on a
real local Ray instance, verifying in Triton's interpreter (or on the GPU: the `gpu` variant)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from conftest import ROOT, run_kzoo
from llm_server import ChatServer, answer, count_tokens, failure

LLM_DIR = ROOT / "tests" / "llm"
TASK = LLM_DIR / "softmax_small.py"
CONTEXT = {"dim": 1, "dim_is_last": True}


def scripted(name: str) -> str:
    return (LLM_DIR / "answers" / f"{name}.md").read_text()


def settings(server: ChatServer, **kw):
    from agent.llm import LLMSettings

    base = dict(model="scripted-model", base_url=server.base_url, rounds=1, samples=1,
                budget_tokens=1_000_000, request_timeout_s=10.0, backoff_s=0.01)
    return LLMSettings(**{**base, **kw})


# ---- answers ------------------------------------------------------------------------------------

def test_answers_parse_into_modules_templates_or_a_reason():
    from agent.llm.answers import ModuleAnswer, TemplateAnswer, Unparseable, parse_answer

    assert isinstance(parse_answer(scripted("slow"), CONTEXT, "launch_softmax"), ModuleAnswer)
    template = parse_answer(scripted("template"), CONTEXT, "launch_softmax")
    assert isinstance(template, TemplateAnswer)
    t = template.template
    assert t.name.startswith("llm-") and [p.name for p in t.space] == [
        "SINGLE_PASS_MAX", "LOOP_BLOCK", "NUM_WARPS"]
    assert t.violations(t.config({"SINGLE_PASS_MAX": 1024, "LOOP_BLOCK": 2048, "NUM_WARPS": 4})) \
        == ["breaks constraint 'LOOP_BLOCK <= SINGLE_PASS_MAX'"]
    assert t.violations(t.config({"SINGLE_PASS_MAX": 2048, "LOOP_BLOCK": 2048, "NUM_WARPS": 4})) \
        == []
    source = t.render(t.default, **CONTEXT)
    assert "SINGLE_PASS_MAX = 8192" in source and "{{" not in source
    # The same answer is the same template (and so the same study); another space is another.
    again = parse_answer(scripted("template"), CONTEXT, "launch_softmax").template
    assert again.name == t.name
    other = parse_answer(scripted("template").replace("[4, 8]", "[4, 8, 16]"), CONTEXT,
                         "launch_softmax").template
    assert other.name != t.name

    reasons = {
        "prose": parse_answer(scripted("unparseable"), CONTEXT),
        "no space": parse_answer("```jinja\nx = {{ A }}\n```", CONTEXT),
        "bad json": parse_answer("```jinja\nx\n```\n```json\n{\"params\": {\"A\": [1],}}\n```",
                                 CONTEXT),
        "undefined": parse_answer("```jinja\n{{ B }}\n```\n```json\n{\"params\": {\"A\": [1]}}"
                                  "\n```", CONTEXT),
        "unsafe": parse_answer("```jinja\nx\n```\n```json\n{\"params\": {\"A\": [1]}, "
                               "\"constraints\": [\"__import__('os')\"]}\n```", CONTEXT),
        "clash": parse_answer("```jinja\nx\n```\n```json\n{\"params\": {\"dim\": [1]}}\n```",
                              CONTEXT),
        "no launcher": parse_answer(scripted("slow").replace("launch_softmax", "run_softmax"),
                                    CONTEXT, "launch_softmax"),
    }
    assert all(isinstance(a, Unparseable) for a in reasons.values()), reasons
    assert "no ```python block" in reasons["prose"].reason
    assert "```json block" in reasons["no space"].reason
    assert "not JSON" in reasons["bad json"].reason and "line 1" in reasons["bad json"].reason
    assert "'B' is undefined" in reasons["undefined"].reason
    assert "only min(), max() and abs()" in reasons["unsafe"].reason
    assert "clash" in reasons["clash"].reason
    assert "launch_softmax" in reasons["no launcher"].reason


def test_a_host_bound_shape_is_named_in_the_feedback_and_kept_in_the_verdict():
    """A shape whose host time per call exceeds its GPU time is called host-bound in what the LLM
    reads (with eager's host time beside it); the host times survive the verdict's summary and
    its round trip through a dict."""
    from agent.llm.feedback import timing_text
    from verifier.verdict import ShapeResult, Verdict

    verdict = Verdict(accepted=True, stage="done", mode="gpu", dtype="bfloat16")
    verdict.shapes = [
        ShapeResult(shape={"rows": 16}, correct=True, ms=0.020, eager_ms=0.025, compile_ms=0.03,
                    host_us=70.0, eager_host_us=33.0),
        ShapeResult(shape={"rows": 8192}, correct=True, ms=0.400, eager_ms=0.41, compile_ms=0.42,
                    host_us=70.0, eager_host_us=33.0),
    ]
    assert [s.host_bound for s in verdict.shapes] == [True, False]
    text = timing_text(verdict.summary())
    small, large = text.split("; ")
    assert "host-bound: 70 us of host time per call, eager PyTorch 33 us" in small
    assert "host-bound" not in large
    again = Verdict.from_dict(verdict.to_dict())
    assert [(s.host_us, s.eager_host_us) for s in again.shapes] == [(70.0, 33.0)] * 2
    assert ShapeResult(shape={}, correct=True).host_bound is None  # never timed


def test_constraints_are_evaluated_without_eval():
    from agent.llm.answers import parse_answer

    text = ("```jinja\n{{ A }} {{ B }}\n```\n```json\n{\"params\": {\"A\": [1, 2, 4], "
            "\"B\": [8, 16]}, \"constraints\": [\"A * B <= 32 and max(A, B) % 8 == 0\", "
            "\"not (A == 1 and B == 16)\"]}\n```")
    t = parse_answer(text, {}).template
    ok = {(a, b) for a in (1, 2, 4) for b in (8, 16) if not t.violations(t.config({"A": a,
                                                                                 "B": b}))}
    assert ok == {(1, 8), (2, 8), (4, 8), (2, 16)}


# ---- the client ---------------------------------------------------------------------------------

def test_client_retries_429_and_500_then_succeeds_and_counts_tokens(monkeypatch):
    from agent.llm.client import ChatClient

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    script = [failure(429, "slow down", headers={"Retry-After": "0"}),
              failure(500, "overloaded"), failure(503, "try later"), answer("hello there")]
    with ChatServer(script) as server:
        client = ChatClient(settings(server))
        reply = client.complete([{"role": "user", "content": "one two three"}])
    assert reply.text == "hello there" and reply.attempts == 4
    assert [e.split(":")[0] for e in reply.errors] == ["HTTP 429", "HTTP 500", "HTTP 503"]
    assert (reply.prompt_tokens, reply.completion_tokens) == (3, 2)
    assert client.budget.record() == {"limit": 1_000_000, "prompt_tokens": 3,
                                      "completion_tokens": 2, "total_tokens": 5, "requests": 1,
                                      "failed_attempts": 3}
    assert len(server.requests) == 4
    assert server.requests[0]["headers"]["authorization"] == "Bearer test-key"
    assert server.requests[0]["body"]["model"] == "scripted-model"


def test_client_times_out_and_retries_and_gives_up_when_retries_are_spent(monkeypatch):
    from agent.llm.client import ChatClient, RequestFailed

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with ChatServer([answer("late", delay_s=3.0), answer("in time")]) as server:
        client = ChatClient(settings(server, request_timeout_s=0.5))
        reply = client.complete([{"role": "user", "content": "x"}])
    assert reply.text == "in time" and reply.attempts == 2
    assert "timed out" in reply.errors[0]

    with ChatServer([failure(502, "bad gateway")] * 3) as server:
        client = ChatClient(settings(server, max_attempts=3))
        with pytest.raises(RequestFailed, match="gave up after 3 attempts") as info:
            client.complete([{"role": "user", "content": "x"}])
    assert info.value.retryable and len(server.requests) == 3


def test_client_does_not_retry_a_bad_key_and_estimates_missing_usage(monkeypatch):
    from agent.llm.client import ChatClient, RequestFailed

    monkeypatch.setenv("OPENAI_API_KEY", "wrong")
    with ChatServer([failure(401, "invalid key"), answer("a b c d", usage=False)]) as server:
        client = ChatClient(settings(server))
        with pytest.raises(RequestFailed, match="HTTP 401: invalid key; check OPENAI_API_KEY"):
            client.complete([{"role": "user", "content": "x"}])
        assert len(server.requests) == 1
        reply = client.complete([{"role": "user", "content": "12345678"}])
    assert not reply.usage_reported and reply.prompt_tokens == 2 and reply.completion_tokens == 1


class _NotAnApi:
    """A loopback HTTP server that is no chat-completions endpoint: `kind` "html" answers POST
    with a web page (200), "broken" with a JSON content type over a body that is not JSON,
    "plain" has no POST at all (501, as `python -m http.server`)."""

    def __init__(self, kind: str):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            if kind != "plain":
                def do_POST(self):
                    self.rfile.read(int(self.headers.get("Content-Length", 0)))
                    body = b"<html><body>Web UI</body></html>" if kind == "html" else b"{oops"
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html" if kind == "html"
                                     else "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize("kind, what", [
    ("html", "a str starting '<html><body>Web UI</body></html>'"),
    ("broken", "a body that is not JSON (Expecting property name enclosed in double quotes"),
    ("plain", "HTTP 501 ("),
])
def test_a_server_that_is_no_chat_endpoint_is_named_at_once(monkeypatch, kind, what):
    """A wrong --llm-base-url: a web page was taken for an empty answer (every round sent, a
    budget charged for nothing), broken JSON stopped the run on a bare JSONDecodeError, and a
    plain web server's 501 was retried as a server error."""
    from agent.llm.client import ChatClient, RequestFailed

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with _NotAnApi(kind) as server:
        client = ChatClient(settings(server, max_attempts=3))
        with pytest.raises(RequestFailed) as info:
            client.complete([{"role": "user", "content": "x"}])
    message = str(info.value)
    assert not info.value.retryable and info.value.attempts == 1, message
    assert message.startswith(f"{server.base_url} answered with {what}"), message
    assert message.endswith("not a chat completion: check --llm-base-url (an OpenAI-compatible "
                            "endpoint's, which usually ends in /v1)"), message
    assert client.budget.record()["total_tokens"] == 0


def test_budget_is_checked_before_sending(monkeypatch):
    from agent.llm.client import BudgetExhausted, ChatClient

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with ChatServer([answer("one two three four five")] * 2) as server:
        client = ChatClient(settings(server, budget_tokens=4))
        client.complete([{"role": "user", "content": "hi"}])
        with pytest.raises(BudgetExhausted, match="6 of 4 tokens"):
            client.complete([{"role": "user", "content": "hi"}])
        assert len(server.requests) == 1


def test_no_key_for_the_default_endpoint_is_a_setup_error(monkeypatch):
    from agent.errors import LLMSetupError
    from agent.llm import LLMSettings, api_key

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMSetupError, match="OPENAI_API_KEY"):
        api_key(LLMSettings(model="m"))
    assert api_key(LLMSettings(model="m", base_url="http://127.0.0.1:1/v1")) == "none"


# ---- the rounds without verification (no answer parses): budget and fatal errors --------------

def _stage(server: ChatServer, **kw):
    import tasks
    from agent.llm.proposer import run_llm_stage
    from agent.plan import plan as make_plan
    from agent.progress import Progress

    task = tasks.load(TASK)
    return run_llm_stage(
        settings(server, **kw), task=task, plan=make_plan(task), dtype="float32",
        mode="interpreter", device="cpu-interpreter", pool=None, storage="unused", trials=1,
        seed=0, progress=Progress(1, quiet=True),
    )


def test_budget_exhaustion_stops_the_rounds_cleanly(kzoo_home, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with ChatServer([answer(scripted("unparseable"))] * 2 + [answer("never sent")]) as server:
        outcome = _stage(server, rounds=5, samples=2, budget_tokens=50)
        assert len(server.requests) == 2  # round 1's two samples; round 2 is never asked
    report = outcome.report
    assert report["status"] == "budget" and report["rounds"] == 1
    assert "token budget spent" in report["stop_reason"]
    assert report["tokens"]["total_tokens"] == sum(
        count_tokens(m["content"]) for r in server.requests for m in r["body"]["messages"]
    ) + 2 * count_tokens(scripted("unparseable"))
    run = json.loads((Path(report["run_dir"]) / "run.json").read_text())
    assert run["status"] == "budget" and run["tokens"] == report["tokens"]
    assert [s["kind"] for s in run["rounds"][0]["samples"]] == ["unparseable", "unparseable"]


def test_a_rejected_key_stops_the_rounds_with_the_reason(kzoo_home, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with ChatServer([failure(401, "invalid key")]) as server:
        outcome = _stage(server, rounds=3)
        assert len(server.requests) == 1
    assert outcome.report["status"] == "failed" and outcome.best is None
    assert "HTTP 401" in outcome.report["stop_reason"]


# ---- the whole flow: optimize --llm on a real Ray instance --------------------------------------

ROUND_1 = ("unparseable", "cheat")
ROUND_2 = ("slow", "wrong")
ROUND_3 = ("template", "compile_error")


def _identify(sample: dict) -> str:
    """Which scripted answer a sample record came from."""
    if sample["kind"] == "unparseable":
        return "unparseable"
    if sample["kind"] == "template":
        return "template"
    for marker, name in (("_touch", "cheat"), ("_softmax_three_pass", "slow"),
                         ("_softmax_first_block_sum", "wrong"), ("fused_row_softmax",
                                                                 "compile_error")):
        if marker in sample["source"]:
            return name
    raise AssertionError(sample)


@pytest.fixture(scope="module")
def ray_instance():
    """One local Ray instance for this module's optimize runs (the loop starts it if none runs)."""
    import ray

    yield
    ray.shutdown()


def run_scripted_flow(kzoo_home: Path, monkeypatch):
    """optimize --llm against the loopback server: 3 rounds of 2 parallel samples (one worker
    per GPU on a GPU machine, two in the interpreter)."""
    from agent import loop
    from verifier.worker import detect_mode
    from agent.llm import LLMSettings

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    script = [answer(scripted(name)) for name in ROUND_1 + ROUND_2 + ROUND_3]
    with ChatServer(script) as server:
        llm = LLMSettings(model="scripted-model", base_url=server.base_url, rounds=3, samples=2,
                          budget_tokens=1_000_000, backoff_s=0.01)
        result = loop.optimize(loop.OptimizeOptions(
            task=str(TASK), trials=2, workers=None if detect_mode() == "gpu" else 2, seed=0,
            quiet=True, promote=False, zoo=str(kzoo_home / "zoo"), llm=llm,
        ))
    return result, server


def check_scripted_flow(result, server: ChatServer, outcome_samples=None) -> dict:
    payload = result.payload
    report = payload["llm"]
    assert report["status"] == "done" and report["rounds"] == 3 and report["samples"] == 6
    # Token accounting is the server's own usage, summed.
    served = server.usage_served
    assert report["tokens"]["prompt_tokens"] == served["prompt_tokens"]
    assert report["tokens"]["completion_tokens"] == served["completion_tokens"]
    assert report["tokens"]["requests"] == 6 == len(server.requests)

    # Every later prompt carries the earlier rounds' verdicts.
    prompts = server.user_prompts()
    first, second, third = prompts[0:2], prompts[2:4], prompts[4:6]
    assert all("None yet: this is the first round." in p for p in first)
    assert all("rendered by kernel-zoo from template `softmax`" in p for p in first)  # the best
    for p in second + third:
        assert "### Round 1" in p
        assert "could not parse the answer: no ```python block" in p
        assert "REJECTED by the static guards before running [pytorch-fallback]" in p
        assert "return torch.softmax(x, dim=-1)" in p  # the guard's line, quoted
    for p in third:
        assert "### Round 2" in p
        assert "[wrong-values]" in p and "mismatches at" in p and "got" in p
        assert "ACCEPTED: " in p
    assert not any("### Round 3" in p for p in prompts)

    run_dir = Path(report["run_dir"])
    run = json.loads((run_dir / "run.json").read_text())
    assert run["status"] == "done" and run["tokens"] == report["tokens"]
    by_round = {}
    for rnd in run["rounds"]:
        for s in rnd["samples"]:
            folder = run_dir / f"round-{rnd['round']:02d}" / f"sample-{s['sample']}"
            assert (folder / "answer.md").is_file() and (folder / "reply.json").is_file()
            assert (folder / "verdict.json").is_file()
            by_round.setdefault(rnd["round"], []).append((folder, s))
        assert (run_dir / f"round-{rnd['round']:02d}" / "prompt.json").is_file()
    samples = {}
    for rnd, entries in by_round.items():
        for folder, s in entries:
            if s["kind"] == "module":
                s = {**s, "source": (folder / "candidate.py").read_text()}
            samples[_identify(s)] = (rnd, folder, s)
    assert {name: rnd for name, (rnd, _, _) in samples.items()} == {
        **{n: 1 for n in ROUND_1}, **{n: 2 for n in ROUND_2}, **{n: 3 for n in ROUND_3}}

    cheat = json.loads((samples["cheat"][1] / "verdict.json").read_text())
    assert not cheat["accepted"] and cheat["stage"] == "guards"
    assert "pytorch-fallback" in cheat["exploits"]
    assert samples["slow"][2]["accepted"], json.loads((samples["slow"][1] / "verdict.json").read_text())
    wrong = json.loads((samples["wrong"][1] / "verdict.json").read_text())
    assert not wrong["accepted"] and "wrong-values" in wrong["exploits"]
    broken = json.loads((samples["compile_error"][1] / "verdict.json").read_text())
    assert not broken["accepted"] and "fused_row_softmax" in broken["reasons"][0]
    interpreter = result.payload["mode"] == "interpreter"
    if interpreter:  # (a GPU compile error carries Triton's own source excerpt instead)
        assert ".py:12)" in broken["reasons"][0]  # the kernel's line, not the launch's
    template = samples["template"][2]
    assert template["accepted"] and template["trials"] == 2 and template["accepted_trials"] == 2
    assert (samples["template"][1] / "template.py.jinja").read_text().startswith("import torch")
    assert "llm-" in template["study"] and "/softmax/" not in template["study"]
    feedback = (run_dir / "round-03" / "feedback.md").read_text()
    if interpreter:
        assert "12 |     y = tl.fused_row_softmax(x)" in feedback  # the offending line, quoted
    return {"samples": samples, "run": run}


@pytest.mark.timeout(900)
def test_scripted_llm_rounds_end_to_end(kzoo_home, monkeypatch, ray_instance):
    """Unparseable, cheat / slow, wrong / template, compile error: verdicts flow into the next
    prompts, the cheat is refused by the guards, and the winner follows the scores."""
    result, server = run_scripted_flow(kzoo_home, monkeypatch)
    found = check_scripted_flow(result, server)
    payload = result.payload
    assert payload["mode"] == "interpreter"
    # The interpreter scores every correct candidate 1.0: among the LLM's, the first correct one
    # (round 2's slow module) leads, and the template search's best, first of all, stays the winner.
    best = payload["llm"]["best"]
    assert best["template"].startswith("llm-module-") and best["origin"].startswith("round 2")
    assert best["template"] == found["samples"]["slow"][2]["name"]
    assert payload["best"]["template"] == "softmax" and payload["best"]["correct"]

    # The audit trail through the CLI.
    listing = run_kzoo("runs", "list", env_home=kzoo_home)
    assert listing.returncode == 0 and payload["llm"]["run_id"] in listing.stdout
    shown = run_kzoo("runs", "show", payload["llm"]["run_id"][:20], "--json",
                     env_home=kzoo_home)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["id"] == payload["llm"]["run_id"]
    text = run_kzoo("runs", "show", payload["llm"]["run_id"], env_home=kzoo_home)
    assert "round 3:" in text.stdout and "unparseable" in text.stdout
    assert "template llm-" in text.stdout and "2/2 config(s) accepted" in text.stdout
    missing = run_kzoo("runs", "show", "no-such-run", env_home=kzoo_home)
    assert missing.returncode == 2 and "kzoo: error: no run 'no-such-run'" in missing.stderr
    assert "Traceback" not in missing.stderr


@pytest.mark.gpu
@pytest.mark.timeout(1800)
def test_scripted_llm_rounds_end_to_end_on_the_gpu(kzoo_home, monkeypatch, ray_instance):
    """The same flow on a GPU: now timed, so the template (one pass per row) beats the slow
    three-pass module and leads the LLM's candidates; the overall winner is the higher score."""
    result, server = run_scripted_flow(kzoo_home, monkeypatch)
    found = check_scripted_flow(result, server)
    payload = result.payload
    assert payload["mode"] == "gpu"
    samples = found["samples"]
    slow_score, template_score = samples["slow"][2]["score"], samples["template"][2]["score"]
    assert template_score > slow_score > 0, (template_score, slow_score)
    best = payload["llm"]["best"]
    assert best["template"] == samples["template"][2]["name"]
    assert best["origin"].startswith("round 3")
    search_best = max((row["score"] or 0.0) for row in result.table)
    expected = best["template"] if best["score"] > search_best else "softmax"
    assert payload["best"]["template"] == expected
    bench_out = os.environ.get("KZOO_LLM_RESULT")
    if bench_out:  # the GPU machine records the run next to the other results
        from verifier.environment import environment

        Path(bench_out).parent.mkdir(parents=True, exist_ok=True)
        Path(bench_out).write_text(json.dumps({
            "what": "optimize --llm against the loopback chat server (tests/test_llm.py)",
            "environment": environment(), "task": str(TASK.relative_to(ROOT)),
            "dtype": payload["dtype"], "shapes": payload["best"]["shapes"],
            "search_best_score": search_best, "llm": payload["llm"], "best": payload["best"],
            "sample_scores": {name: s[2]["score"] for name, s in samples.items()},
        }, indent=2, default=str) + "\n")


@pytest.mark.timeout(600)
def test_an_op_no_template_covers_goes_to_the_llm_alone(kzoo_home, monkeypatch, ray_instance,
                                                        tmp_path, capsys):
    """row_sum (a nansum) matches no template family: with --llm, the model's template is tuned
    by its own study and verified; nothing is promoted. Run as `kzoo optimize` runs it: its
    report once ended in a KeyError (a key the payload of this path lacked), --json unwritten."""
    from agent.cli import main

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    task = LLM_DIR / "row_sum.py"
    out = tmp_path / "out.json"
    with ChatServer([answer(scripted("row_sum_template"))]) as server:
        code = main(["optimize", str(task), "--trials", "2", "--workers", "2", "--seed", "0",
                     "--llm", "scripted-model", "--llm-base-url", server.base_url,
                     "--llm-rounds", "1", "--llm-samples", "1", "--json", str(out)])
        prompt = server.user_prompts()[0]
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "best: trial 0 of 0 (interpreter, float32), verified correct" in printed.out
    assert "No template family covers this op" in prompt and "torch.nansum(x, dim=-1)" in prompt
    payload = json.loads(out.read_text())
    assert payload["time_budget_ran_out"] is False
    assert payload["plan_problem"] and "matches no template family" in payload["plan_problem"]
    assert payload["best"]["correct"] and payload["best"]["template"].startswith("llm-")
    assert set(payload["best"]["params"]) == {"BLOCK", "WARPS"}
    assert payload["promoted"] is None and payload["llm"]["status"] == "done"
    assert payload["throughput"]["verified"] == 2
    assert payload["environment"]["torch"] and payload["best"]["gpu"] is None  # interpreter


def test_an_llm_winner_makes_a_valid_zoo_entry(isolated_zoo, tmp_path):
    """On a GPU the loop promotes an LLM winner like a template's: its record must be a valid
    manifest config and its module must offer the zoo's launcher."""
    import tasks
    from agent.llm.answers import parse_answer
    from agent.loop import _promote
    from agent.plan import plan as make_plan
    from kernel_zoo import store

    task = tasks.load(TASK)
    plan = make_plan(task)
    for name in ("slow", "template"):
        parsed = parse_answer(scripted(name), plan.context, "launch_softmax")
        template = parsed.template if name == "template" else None
        if template is None:
            from agent.llm.answers import module_template

            template = module_template(parsed.source)
        cfg = template.default
        source = template.render(cfg, **plan.context)
        verdict = {"accepted": True, "stage": "done", "mode": "gpu", "dtype": "float32"}
        env = {"gpu": "test", "arch": "sm_90", "driver": None, "cuda": None, "torch": "x",
               "triton": "y", "python": "z", "date": "d", "sm_count": None}
        promoted = _promote(task, plan, template, cfg, source, "float32", verdict, env,
                            tmp_path / "zoo")
        entry = store.find_entry("softmax", promoted["version"], [tmp_path / "zoo"])
        config = entry.manifest["configs"][-1]
        assert config["template"] == template.name
        module = store.load_kernel(entry.path, config, entry.manifest)
        assert callable(module.launch_softmax)


# ---- the command line ---------------------------------------------------------------------------

def test_dry_run_prints_the_first_prompt_without_a_key_or_server(tmp_path):
    env_home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    proc = run_kzoo_env(env, "optimize", "tasks/softmax.py", "--llm", "some-model",
                        "--llm-dry-run", env_home=env_home)
    assert proc.returncode == 0, proc.stderr
    assert "===== system =====" in proc.stdout and "===== user =====" in proc.stdout
    assert "launch_softmax(x)" in proc.stdout and "pytorch-fallback" in proc.stdout
    assert "Triton interpreter (CPU), correctness only" in proc.stdout
    assert "return torch.softmax(x, dim=1)" in proc.stdout  # the task's source
    assert "zoo entry softmax" in proc.stdout  # an example from the shipped zoo
    assert not (env_home / "runs").exists()  # nothing was sent, nothing recorded


def test_dry_run_json_for_an_op_no_template_covers(kzoo_home, monkeypatch, capsys):
    from agent.cli import main

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert main(["optimize", str(LLM_DIR / "row_sum.py"),
                 "--llm-dry-run",
                 "--json", "-"]) == 0
    messages = json.loads(capsys.readouterr().out)["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "No template family covers this op" in messages[1]["content"]
    assert "launch_row_sum" in messages[0]["content"]


def test_llm_without_a_key_is_a_one_line_usage_error(kzoo_home, monkeypatch, capsys):
    from agent.cli import main

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    # `--llm "$MODEL"` with MODEL unset ran the search with no LLM, silently
    assert main(["optimize", str(ROOT / "tasks" / "softmax.py"), "--llm", ""]) == 2
    assert capsys.readouterr().err == (
        "kzoo: error: --llm: empty model name (an unset variable?); name the model the endpoint "
        "serves, e.g. --llm gpt-4o, or leave --llm out\n")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert main(["optimize", str(ROOT / "tasks" / "softmax.py"), "--llm", "gpt-x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kzoo: error: --llm needs OPENAI_API_KEY") and err.count("\n") == 1
    with pytest.raises(SystemExit):
        main(["optimize", "--help"])
    helped = capsys.readouterr().out
    for flag in ("--llm ", "--llm-base-url", "--llm-rounds", "--llm-samples", "--llm-budget",
                 "--llm-dry-run", "OPENAI_API_KEY"):
        assert flag in helped


def test_an_endpoint_that_is_no_url_is_a_usage_error_before_the_search(kzoo_home, monkeypatch,
                                                                         capsys):
    from agent.cli import main

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for url in ("notaurl", "127.0.0.1:8000/v1", "ftp://host/v1"):
        assert main(["optimize", str(ROOT / "tasks" / "softmax.py"), "--llm", "m",
                     "--llm-base-url", url]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"kzoo: error: --llm-base-url / OPENAI_BASE_URL {url!r} is not an "
                              "http(s) URL") and err.count("\n") == 1
    assert not (kzoo_home / "studies.db").exists()  # no search ran


def run_kzoo_env(env: dict, *args: str, env_home: Path):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "agent", *args], cwd=ROOT, capture_output=True, text=True,
        env={**env, "KZOO_HOME": str(env_home), "PYTHONPATH": str(ROOT)}, timeout=300,
    )


def test_runs_read_a_mangled_record_without_a_traceback(tmp_path):
    runs = tmp_path / "home" / "runs"
    for name, text in [("a-null", "null"), ("b-empty", "{}"),
                       ("c-cut", json.dumps({"id": "c-cut", "rounds": [{"round": 1}]})),
                       ("d-nulls", json.dumps({"id": "d-nulls", "rounds": None, "best": None,
                                               "tokens": None, "settings": None})),
                       ("e-bad-round", json.dumps({"id": "e-bad-round", "best": "x",
                                                   "rounds": [None, {"samples": [
                                                       None, {"exploits": None,
                                                              "reason": 3}]}]}))]:
        (runs / name).mkdir(parents=True)
        (runs / name / "run.json").write_text(text)
    listing = run_kzoo("runs", "list", env_home=tmp_path / "home")
    assert listing.returncode == 0 and "Traceback" not in listing.stderr, listing.stderr
    assert listing.stdout.count("unreadable") == 2 and "c-cut" in listing.stdout
    shown = run_kzoo("runs", "show", "c-cut", env_home=tmp_path / "home")
    assert shown.returncode == 0 and "round 1:" in shown.stdout, shown.stderr
    for run_id in ("d-nulls", "e-bad-round"):
        shown = run_kzoo("runs", "show", run_id, env_home=tmp_path / "home")
        assert shown.returncode == 0 and "best: none accepted" in shown.stdout, shown.stderr
    assert "sample ?: ? " in shown.stdout and ": 3" in shown.stdout
    empty = run_kzoo("runs", "show", "", env_home=tmp_path / "home")
    assert empty.returncode == 2 and "give a run's id" in empty.stderr


def test_runs_show_of_no_run_with_json_is_a_json_error(tmp_path):
    proc = run_kzoo("runs", "show", "nope", "--json", env_home=tmp_path / "home")
    assert proc.returncode == 2 and proc.stderr.startswith("kzoo: error: no run 'nope'")
    assert json.loads(proc.stdout) == {"error": proc.stderr[len("kzoo: error: "):-1],
                                       "exit_code": 2, "command": "runs show"}


@pytest.mark.timeout(300)
def test_one_ctrl_c_during_a_slow_request_stops_an_llm_run_at_once(tmp_path):
    """The LLM alone (no template covers row_sum), its request stalled for 120 s: one Ctrl-C
    waited for the request to end (a thread pool's exit), then said "completed trials are kept in
    the study" (there is none) and left --json empty. Now it stops within seconds, says where the
    run is recorded, and --json gets the interrupted object."""
    import signal
    import subprocess
    import sys
    import time

    from conftest import signal_when

    out = tmp_path / "out.json"
    env = {**os.environ, "OPENAI_API_KEY": "test-key", "KZOO_HOME": str(tmp_path / "home"),
           "PYTHONPATH": str(ROOT)}
    with ChatServer([answer(scripted("row_sum_template"), delay_s=120)]) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent", "optimize", str(LLM_DIR / "row_sum.py"),
             "--trials", "2", "--workers", "1", "--llm", "scripted-model", "--llm-base-url",
             server.base_url, "--llm-rounds", "1", "--llm-samples", "1", "--json", str(out)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        asked: list[float] = []  # when the request was seen out

        def request_out() -> bool:
            if server.requests and not asked:
                asked.append(time.monotonic())
            return bool(asked)

        err = signal_when(proc, request_out, signal.SIGINT, within_s=200, end_s=60)
        stopped_after = time.monotonic() - asked[0]
    assert proc.returncode == 130, err
    assert stopped_after < 30, stopped_after  # not the request's 120 s
    assert "Traceback" not in err and "kept in the study" not in err, err
    payload = json.loads(out.read_text())
    run_id = payload["llm"]["run_id"]
    assert payload["interrupted"] is True and payload["llm"]["status"] == "interrupted"
    assert (f"kzoo: interrupted; LLM run {run_id} is recorded in {payload['llm']['run_dir']} "
            f"(kzoo runs show {run_id}); run the same command again for a new run") in err, err
