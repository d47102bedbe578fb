"""Figures of the user-side evaluation (definitions in docs/benchmarks.md, "User-side
evaluation"), computed separately for each split and for recall and the hook context text.

Recall: a memory is *served* when recall lists it and the state is not UNKNOWN; the *top*
served memory is the answer. Hook: what the agent is told for the question as its prompt (the
user-prompt-submit context); its first line is the answer and "no memory line" is abstaining.
Lines marked disputed are not served. The session-start context counts for stale use and leaks.

* current-state accuracy: answerable questions that are not as-of: the top served memory is an
  expected one and no forbidden memory is served.
* abstention precision / recall: positives are the questions with nothing to answer.
* paraphrased accuracy: the same rule over the `paraphrase` questions.
* as-of accuracy (recall only: the hook has no "as of"): the top served memory is the one valid
  at `as_of`, or UNKNOWN when nothing was.
* critical stale use: questions where a memory that is not active at the end of the story is
  served as current (or, as-of, a forbidden one).
* cross-workspace leaks: questions where another repository's memory is served or shown.
* memories served per answer; share of answers with a stale memory alongside.
"""

from __future__ import annotations

from statistics import mean
from typing import Any

TARGETS = {
    "current_state_accuracy": (">=", 0.95),
    "abstention_precision": (">=", 0.95),
    "abstention_recall": (">=", 0.95),
    "paraphrased_accuracy": (">=", 0.85),
    "asof_accuracy": (">=", 0.9),
    "critical_stale_use": ("==", 0),
    "cross_workspace_leaks": ("==", 0),
}


def ratio(num: float, den: float) -> float | None:
    return round(num / den, 4) if den else None


def meets(name: str, value: float | None) -> bool:
    op, target = TARGETS[name]
    return value is not None and (value >= target if op == ">=" else value == target)


class Scorer:
    """Scores answers against the questions, knowing each memory's repository and end status."""

    def __init__(
        self, questions: dict[str, Any], statuses: dict[str, str], home_of: dict[str, str | None]
    ) -> None:
        self.questions, self.statuses, self.home_of = questions, statuses, home_of

    def _stale(self, gid: str) -> bool:
        return self.statuses.get(gid, "active") != "active"

    def _foreign(self, gid: str, repo: str) -> bool:
        home = self.home_of.get(gid)
        return home is not None and home != repo

    def _right(self, q: Any, served: list[str]) -> bool:
        if q.abstain:
            return not served
        return bool(served) and served[0] in q.expect and not set(served) & set(q.forbid)

    def views(self, answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
        prompt = [line["id"] for line in answer["hook_prompt"] if not line["disputed"]]
        shown = prompt + [line["id"] for line in answer["hook_start"] if not line["disputed"]]
        return {
            "recall": {"served": answer["served"], "shown": answer["served"]},
            "hook": {"served": prompt, "shown": shown},
        }

    def summarise(self, answers: list[dict[str, Any]], view: str) -> dict[str, Any]:
        current, abstain_tp, abstained, positives, para, asof = [], 0, 0, 0, [], []
        stale_uses, leaks, sizes, alongside, failing, asked = 0, 0, [], 0, {}, 0
        for a in answers:
            q = self.questions[a["id"]]
            seen = self.views(a)[view]
            served, shown = seen["served"], seen["shown"]
            historical = "asof" in q.tags
            if historical and view == "hook":
                continue
            asked += 1
            right = self._right(q, served)
            if not historical and not q.abstain:
                current.append(right)
            if "paraphrase" in q.tags:
                para.append(right)
            if historical:
                asof.append(right)
            if not historical:
                positives += q.abstain
                abstained += not served
                abstain_tp += q.abstain and not served
            if historical:  # the newer value for an earlier time is wrong, not stale
                stale = [g for g in served if g in q.forbid and self._stale(g)]
            else:
                stale = [g for g in shown if self._stale(g)]
            stale_uses += bool(stale)
            leaks += any(self._foreign(g, q.repo) for g in shown)
            if served:
                sizes.append(len(served))
                alongside += bool(stale)
            if not right or stale:
                failing[a["id"]] = {
                    "q": q.text,
                    "state": a.get("state"),
                    "served": served[:3],
                    "expect": list(q.expect),
                }
        figures = {
            "questions": asked,
            "current_state_accuracy": ratio(sum(current), len(current)),
            "abstention_precision": ratio(abstain_tp, abstained),
            "abstention_recall": ratio(abstain_tp, positives),
            "paraphrased_accuracy": ratio(sum(para), len(para)),
            "asof_accuracy": ratio(sum(asof), len(asof)) if view == "recall" else None,
            "critical_stale_use": stale_uses,
            "cross_workspace_leaks": leaks,
            "memories_per_answer": round(mean(sizes), 3) if sizes else None,
            "share_answered_with_stale_alongside": ratio(alongside, len(sizes)),
            "counts": {
                "current": len(current),
                "abstain": positives,
                "paraphrase": len(para),
                "asof": len(asof),
            },
        }
        figures["targets_met"] = {
            k: meets(k, figures[k])
            for k in TARGETS
            if not (view == "hook" and k == "asof_accuracy")
        }
        figures["failing"] = failing
        return figures
