"""The adversarial corpus: every exploit is rejected with a reason naming its class, every honest
control is accepted. Each file in tests/adversarial/ says what it expects in its docstring:
`EXPECT: accept` or `EXPECT: reject class[|class...]`, optionally `TASK: name` (a task in
tests/adversarial/tasks/, default the built-in softmax task)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tasks
from conftest import ROOT, run_kzoo
from verifier.core import Verifier
from verifier.exploits import EXPLOITS
from verifier.worker import detect_mode

CORPUS = ROOT / "tests" / "adversarial"
FILES = sorted(CORPUS.glob("*.py"))


def expectation(path: Path) -> tuple[str, set[str], Path]:
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    fields = dict(line.split(":", 1) for line in doc.splitlines() if ":" in line)
    verdict, _, classes = fields["EXPECT"].strip().partition(" ")
    task = fields.get("TASK", "").strip()
    task_path = CORPUS / "tasks" / f"{task}.py" if task else ROOT / "tasks" / "softmax.py"
    return verdict, set(filter(None, classes.split("|"))), task_path


@pytest.fixture(scope="module")
def verifier(tmp_path_factory):
    return Verifier(detect_mode(), tmp_path_factory.mktemp("candidates"))


def test_corpus_covers_the_exploit_classes_and_has_controls():
    expected = [expectation(p) for p in FILES]
    rejected = set().union(*(classes for verdict, classes, _ in expected if verdict == "reject"))
    assert rejected <= set(EXPLOITS)
    assert len(rejected) >= 12
    honest_tasks = {task for verdict, _, task in expected if verdict == "accept"}
    assert len(honest_tasks) >= 3


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_corpus_verdicts(path, verifier):
    verdict_expected, classes, task_path = expectation(path)
    task = tasks.load(task_path)
    verdict = verifier.verify(task, path.read_text(), "float32")
    if verdict_expected == "accept":
        assert verdict.accepted, verdict.reasons
        assert verdict.exploits == []
    else:
        assert not verdict.accepted
        assert set(verdict.exploits) & classes, (verdict.exploits, verdict.reasons)
        named = [r for r in verdict.reasons if any(f"[{c}]" in r for c in classes)]
        assert named, verdict.reasons


def test_kzoo_verify_names_the_exploit_class(tmp_path):
    proc = run_kzoo("verify", "--task", "tasks/softmax.py", "--candidate",
                    str(CORPUS / "operator_fallback.py"), env_home=tmp_path)
    assert proc.returncode == 1
    assert "[pytorch-fallback]" in proc.stdout and "aten.pow" in proc.stdout
