"""Command-line parts of the LLM proposer: the `optimize --llm*` flags, `--llm-dry-run`, and
`kzoo runs list|show`."""

from __future__ import annotations

import argparse
import sys

from agent.llm import DEFAULT_BUDGET, DEFAULT_ROUNDS, DEFAULT_SAMPLES, LLMSettings
from agent.argtypes import positive_float, positive_int
from agent.errors import UsageError


def add_llm_flags(opt: argparse.ArgumentParser) -> None:
    group = opt.add_argument_group(
        "LLM proposer (off unless --llm is given)",
        "After the template search, an OpenAI-compatible model writes full candidate modules or "
        "templates with a parameter space, from the verifier's feedback, for --llm-rounds rounds. "
        "Key: OPENAI_API_KEY (needed for api.openai.com; a server given by URL may take none). "
        "Every prompt, answer and verdict is kept under $KZOO_HOME/runs/ (see `kzoo runs`).",
    )
    group.add_argument("--llm", metavar="MODEL", help="model name to ask (e.g. gpt-4.1, or the "
                       "name a vLLM/Ollama server serves)")
    group.add_argument("--llm-base-url", metavar="URL",
                       help="endpoint of an OpenAI-compatible server, e.g. "
                       "http://localhost:8000/v1 (default: OPENAI_BASE_URL, else api.openai.com)")
    group.add_argument("--llm-rounds", type=positive_int, default=DEFAULT_ROUNDS, metavar="N",
                       help=f"rounds of prompt -> answers -> verdicts (default {DEFAULT_ROUNDS})")
    group.add_argument("--llm-samples", type=positive_int, default=DEFAULT_SAMPLES, metavar="K",
                       help="answers per round, requested and verified in parallel (default "
                       f"{DEFAULT_SAMPLES})")
    group.add_argument("--llm-budget", type=positive_int, default=DEFAULT_BUDGET,
                       metavar="TOKENS", help="stop asking once prompt + completion tokens reach "
                       f"this (default {DEFAULT_BUDGET}); requests in flight still count")
    group.add_argument("--llm-timeout", type=positive_float, default=300.0, metavar="SECONDS",
                       help="per-request limit before it is retried (default 300)")
    group.add_argument("--llm-dry-run", action="store_true",
                       help="print the first round's prompt for TASK and exit; sends nothing and "
                       "needs no key or server")


def llm_settings(args: argparse.Namespace) -> LLMSettings | None:
    """The settings the flags ask for, or None when the LLM is off; checks the key up front."""
    from agent.llm import api_key, check_base_url, resolve_base_url

    if args.llm is None:
        return None
    if not args.llm.strip():  # `--llm "$MODEL"` with MODEL unset: not "no LLM", silently
        raise UsageError("--llm: empty model name (an unset variable?); name the model the "
                         "endpoint serves, e.g. --llm gpt-4o, or leave --llm out")
    settings = LLMSettings(
        model=args.llm, base_url=resolve_base_url(args.llm_base_url), rounds=args.llm_rounds,
        samples=args.llm_samples, budget_tokens=args.llm_budget,
        request_timeout_s=args.llm_timeout,
    )
    api_key(settings)  # LLMSetupError now, not after the template search
    check_base_url(settings.base_url)
    return settings


def dry_run(args: argparse.Namespace) -> int:
    """Print the messages the first round would send."""
    import tasks
    from agent.errors import PlanError
    from agent.jsonout import check_json_target, write_json
    from agent.llm import resolve_base_url
    from agent.llm.proposer import first_prompt
    from agent.plan import plan as make_plan

    check_json_target(args.json)
    task = tasks.load(args.task)
    dtype = args.dtype or task.dtypes[0]
    if dtype not in task.dtypes:
        raise tasks.TaskError(f"dtype {dtype} is not among the task's dtypes {list(task.dtypes)}")
    try:
        plan, problem = make_plan(task), None
    except PlanError as exc:
        plan, problem = None, str(exc)
    settings = LLMSettings(model=args.llm or "(none given)",
                           base_url=resolve_base_url(args.llm_base_url), rounds=args.llm_rounds,
                           samples=args.llm_samples, budget_tokens=args.llm_budget)
    messages = first_prompt(settings, task, dtype, plan, problem)
    if args.json:
        write_json(args.json, {"model": settings.model, "base_url": settings.base_url,
                               "messages": messages})
    else:
        for message in messages:
            print(f"===== {message['role']} =====\n{message['content']}")
    return 0


def add_runs_parser(sub) -> None:
    runs = sub.add_parser(
        "runs", help="list and show LLM runs (their prompts, answers, verdicts, tokens)",
        description="Every `optimize --llm` run keeps its prompts, answers, verdicts and token use "
        "under $KZOO_HOME/runs/<id>/.",
    )
    runs_sub = runs.add_subparsers(dest="runs_command", metavar="ACTION", required=True)
    listing = runs_sub.add_parser("list", help="one line per run, oldest first")
    listing.add_argument("--json", action="store_true", help="every run.json as a JSON list "
                         "(an error as a JSON object)")
    show = runs_sub.add_parser("show", help="one run: settings, rounds, samples, verdicts, tokens")
    show.add_argument("run_id", metavar="ID", help="a run id, or a unique prefix of one")
    show.add_argument("--json", action="store_true", help="the run's run.json (an error, such "
                      "as no run by that ID, as a JSON object)")


def _dict(value) -> dict:
    """`value` if it is an object, else {}: a run.json may be cut or edited by hand, and a null
    or a string where an object was should not end `runs list|show` in a traceback."""
    return value if isinstance(value, dict) else {}


def _list(value) -> list:
    """`value` if it is a list, else [] (as `_dict`)."""
    return value if isinstance(value, list) else []


def _tokens(run: dict) -> str:
    return str(_dict(run.get("tokens")).get("total_tokens", "-"))


def run_runs(args: argparse.Namespace) -> int:
    from agent.jsonout import write_json
    from agent.llm.runs import find_run, list_runs, runs_dir

    if args.runs_command == "list":
        runs = list_runs()
        if args.json:
            write_json("-", runs)
            return 0
        if not runs:
            print(f"no LLM runs under {runs_dir()}")
            return 0
        print(f"{'id':<44} {'status':<9} {'model':<18} {'rounds':>6} {'tokens':>8}  best")
        for run in runs:
            best = _dict(run.get("best"))
            best_text = f"{best.get('template')} ({best.get('origin')})" if best else "-"
            print(f"{run['id']:<44} {str(run.get('status')):<9} {str(run.get('model', '-')):<18} "
                  f"{len(_list(run.get('rounds'))):>6} {_tokens(run):>8}  {best_text}")
        return 0
    run = find_run(args.run_id)
    if args.json:
        write_json("-", run)
        return 0
    print(f"run {run['id']}  ({run.get('status')}"
          + (f": {run['stop_reason']}" if run.get("stop_reason") else "") + ")")
    print(f"  task {run.get('task')} ({run.get('dtype')}) on {run.get('device')} "
          f"[{run.get('mode')}]; model {run.get('model')} at "
          f"{_dict(run.get('settings')).get('base_url') or 'api.openai.com'}")
    tokens = _dict(run.get("tokens"))
    print(f"  tokens: {tokens.get('prompt_tokens', 0)} prompt + "
          f"{tokens.get('completion_tokens', 0)} completion = {tokens.get('total_tokens', 0)} of "
          f"{tokens.get('limit', '-')}; {tokens.get('requests', 0)} request(s), "
          f"{tokens.get('failed_attempts', 0)} failed attempt(s) retried")
    inc = _dict(run.get("incumbent"))
    if inc:
        print(f"  template search best before the LLM: {inc.get('template')} score "
              f"{inc.get('score')}")
    # .get and _dict/_list throughout: a run.json may be cut or hand-edited
    for rnd in map(_dict, _list(run.get("rounds"))):
        print(f"  round {rnd.get('round', '?')}:")
        for s in map(_dict, _list(rnd.get("samples"))):
            state = "accepted" if s.get("accepted") else "rejected"
            kind = s.get("kind", "?")
            if kind in ("unparseable", "failed"):
                state = kind
            extra = ""
            if kind == "template":
                extra = f", {s.get('accepted_trials')}/{s.get('trials')} config(s) accepted"
            elif kind == "module" and not s.get("accepted"):
                exploits = ", ".join(map(str, _list(s.get("exploits"))))
                extra = f" at {s.get('stage')}" + (f" [{exploits}]" if exploits else "")
            reason = f": {str(s['reason'])[:100]}" if s.get("reason") else ""
            print(f"    sample {s.get('sample', '?')}: {kind} {s.get('name') or ''} {state}"
                  f"{extra}{reason}")
    best = _dict(run.get("best"))
    print(f"  best: {best.get('template')} from {best.get('origin')}, score {best.get('score')}"
          if best else "  best: none accepted")
    print(f"  files: {runs_dir() / run['id']}")
    return 0


def print_llm_summary(report: dict, stream=sys.stdout) -> None:
    tokens = report["tokens"]
    best = report.get("best")
    print(f"llm: {report['model']}, {report['rounds']} round(s), {report['samples']} answer(s), "
          f"{tokens['total_tokens']} tokens ({tokens['prompt_tokens']} prompt, "
          f"{tokens['completion_tokens']} completion); best "
          + (f"{best['template']} from {best['origin']}" if best else "none accepted")
          + (f"; stopped: {report['stop_reason']}" if report.get("stop_reason") else "")
          + f"; run {report['run_id']} (kzoo runs show {report['run_id']})", file=stream)
