"""Validate the memvet gold evaluation cases (stdlib only).

    python tests/eval/cases/validate.py            # schema, consistency, counts, ratios, rendering
    python tests/eval/cases/validate.py --no-render

Exit 0 when everything passes; otherwise every problem is printed and the exit code is 1.
The checks are about the cases themselves (is every id defined, are times in order, does the
operator's action history really end in the declared status, is every expected memory in
scope and valid at the asked time, do the ratios hold), never about memvet's code.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # keep the cases folder clean
sys.path.insert(0, str(HERE))
import render  # noqa: E402

CATEGORIES = render.CATEGORIES
HOSTS = {"claude-code", "codex"}
KINDS = {"preference", "constraint", "decision", "fact", "procedure"}
POLARITIES = {"assert", "deny"}
STATUSES = {"active", "superseded", "retired", "disputed", "rejected", "pending"}
ACTIONS = {"approve", "reject", "false_write", "forget", "dispute", "restore"}
STATES = {
    "VERIFIED",
    "VERIFIED_HISTORICAL",
    "VERIFIED_NEGATIVE",
    "VERIFIED_WITH_NEGATIVE_BOUNDARY",
    "UNKNOWN",
}
REASONS = {
    "unresolved_conflict",
    "retired_or_expired",
    "candidate_or_unverified",
    "insufficient_evidence",
}
CODEX_FORMATS = {"legacy", "2025", "paginated"}

MIN_CASES = 160
MIN_PER_CATEGORY = 20
MIN_ABSTAIN = 0.15
MIN_TRAP = 0.20
HOST_BAND = (0.35, 0.65)

CASE_KEYS = {
    "id",
    "category",
    "description",
    "workspace",
    "sessions",
    "memories",
    "hard_negatives",
    "operator_actions",
    "query",
    "as_of",
    "expected_ids",
    "forbidden_ids",
    "hard_negative_ids",
    "should_abstain",
    "expected_state",
    "stale_or_retired_trap",
}
CASE_OPTIONAL = {"repos", "expected_reason", "secret_strings", "notes"}
SESSION_KEYS = {"host", "session_id", "cwd", "workspace", "start", "turns"}
SESSION_OPTIONAL = {"cc_version", "codex_format", "compact_after", "injected", "git_branch"}
MEMORY_KEYS = {
    "id",
    "from_turn",
    "kind",
    "statement",
    "polarity",
    "global",
    "workspace",
    "supersedes",
    "valid_from",
    "valid_to",
    "status_after",
}
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def T(s: str) -> dt.datetime:
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00"))


def under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def deepest_repo(path: str, repos: list[str]) -> str | None:
    hits = [r for r in repos if under(path, r)]
    return max(hits, key=len) if hits else None


class Problems:
    def __init__(self) -> None:
        self.items: list[str] = []

    def __call__(self, where: str, msg: str) -> None:
        self.items.append(f"{where}: {msg}")


# ----------------------------------------------------------------------------- lifecycle simulation
def simulate(case: dict, err: Problems) -> dict[str, list[tuple[dt.datetime, str]]]:
    """Replay the operator actions; return, per memory, its status history [(time, status)]."""
    cid = case["id"]
    mems = {m["id"]: m for m in case["memories"]}
    hist: dict[str, list[tuple[dt.datetime, str]]] = {mid: [] for mid in mems}
    status = {mid: "candidate" for mid in mems}
    for act in case["operator_actions"]:
        mid, a, at = act["memory"], act["action"], T(act["at"])
        if mid not in mems:
            continue
        cur = status[mid]
        new = None
        if a == "approve" and cur == "candidate":
            new = "active"
            sup = mems[mid]["supersedes"]
            if sup and sup in status:
                if status[sup] in ("active", "disputed"):
                    status[sup] = "superseded"
                    hist[sup].append((at, "superseded"))
                else:
                    err(
                        cid,
                        f"{mid} supersedes {sup}, which is {status[sup]} when {mid} is approved",
                    )
        elif a == "reject" and cur == "candidate":
            new = "rejected"
        elif a in ("false_write", "forget") and cur in ("active", "disputed"):
            new = "retired"
        elif a == "dispute" and cur == "active":
            new = "disputed"
        elif a == "restore" and cur == "retired":
            new = "active"
        if new is None:
            err(cid, f"illegal action {a} on {mid} in status {cur}")
            continue
        status[mid] = new
        hist[mid].append((at, new))
    for mid, m in mems.items():
        final = status[mid]
        if final == "candidate":
            final = "pending"
        if final != m["status_after"]:
            err(cid, f"{mid}: actions end in {final!r} but status_after is {m['status_after']!r}")
    return hist


def status_at(hist: list[tuple[dt.datetime, str]], when: dt.datetime) -> str | None:
    s = None
    for at, st in hist:
        if at <= when:
            s = st
    return s


def valid_to_known_at(case: dict, hist: dict, mid: str, when: dt.datetime) -> dt.datetime | None:
    """valid_to of a memory as the store knew it at record time ``when``."""
    m = next(x for x in case["memories"] if x["id"] == mid)
    if m["valid_to"] is None:
        return None
    vt = T(m["valid_to"])
    # a supersession or retirement is only known once it was recorded
    for at, st in hist[mid]:
        if st in ("superseded", "retired") and at <= when:
            return vt
    return None


# ----------------------------------------------------------------------------- per case
def check_case(case: dict, category: str, err: Problems, info: collections.Counter) -> None:
    cid = case.get("id", "?")
    keys = set(case)
    for k in CASE_KEYS - keys:
        err(cid, f"missing key {k}")
    for k in keys - CASE_KEYS - CASE_OPTIONAL:
        err(cid, f"unknown key {k}")
    if CASE_KEYS - keys:
        return
    if not re.fullmatch(rf"{category}_\d{{3}}", cid):
        err(cid, f"id must look like {category}_NNN")
    if case["category"] != category:
        err(cid, "category differs from the file's category")
    if not case["description"].strip():
        err(cid, "empty description")
    repos = case.get("repos", [case["workspace"]])
    if case["workspace"] not in repos:
        err(cid, "workspace missing from repos")
    for r in repos:
        if not r.startswith("/"):
            err(cid, f"repo {r} is not absolute")
    if len(set(repos)) != len(repos):
        err(cid, "duplicate repos")

    # sessions and turns
    turns: dict[str, dict] = {}
    turn_time: dict[str, dt.datetime] = {}
    sess_end: list[dt.datetime] = []
    prev_end = None
    sids = set()
    for si, s in enumerate(case["sessions"]):
        w = f"{cid} s{si}"
        for k in SESSION_KEYS - set(s):
            err(w, f"missing key {k}")
        for k in set(s) - SESSION_KEYS - SESSION_OPTIONAL:
            err(w, f"unknown key {k}")
        if SESSION_KEYS - set(s):
            return
        if s["host"] not in HOSTS:
            err(w, f"bad host {s['host']}")
        if not UUID.match(s["session_id"]) or s["session_id"] in sids:
            err(w, "session_id must be a unique lowercase uuid")
        sids.add(s["session_id"])
        if s["host"] == "codex":
            ms = int(T(s["start"]).timestamp() * 1000)
            if s["session_id"].replace("-", "")[:12] != f"{ms:012x}" or s["session_id"][14] != "7":
                err(w, "codex thread id must be a UUIDv7 of the start time")
            if "cc_version" in s:
                err(w, "cc_version on a codex session")
            if s.get("codex_format", "legacy") not in CODEX_FORMATS:
                err(w, "bad codex_format")
        else:
            if s["session_id"][14] != "4":
                err(w, "claude session id must be a uuid4")
            if "codex_format" in s:
                err(w, "codex_format on a claude session")
        if not ISO.match(s["start"]):
            err(w, "start is not ISO 8601 UTC")
        if not s["cwd"].startswith("/"):
            err(w, "cwd not absolute")
        if s["workspace"] not in repos:
            err(w, "session workspace not in repos")
        if deepest_repo(s["cwd"], repos) != s["workspace"]:
            err(w, f"workspace should be the git root of cwd ({deepest_repo(s['cwd'], repos)})")
        start = T(s["start"])
        if prev_end and start <= prev_end:
            err(w, "session starts before the previous one ended")
        last = start
        ids = set()
        if not s["turns"]:
            err(w, "no turns")
        for t in s["turns"]:
            tw = f"{w}:{t.get('id')}"
            if set(t) - {"role", "id", "at", "text", "tool"} or {"role", "id", "at", "text"} - set(
                t
            ):
                err(tw, f"bad turn keys {sorted(t)}")
                continue
            if t["role"] not in ("user", "assistant"):
                err(tw, "bad role")
            pat = r"u\d+" if t["role"] == "user" else r"a\d+"
            if not re.fullmatch(pat, t["id"]) or t["id"] in ids:
                err(tw, "turn id must be unique u<n> (user) or a<n> (assistant)")
            ids.add(t["id"])
            if (
                not ISO.match(t["at"])
                or T(t["at"]) < last
                or (T(t["at"]) == last and ids != {t["id"]})
            ):
                err(tw, "turn time not ISO or not increasing")
            last = T(t["at"])
            if not isinstance(t["text"], str) or not t["text"].strip():
                err(tw, "empty text")
            if "tool" in t:
                tool = t["tool"]
                if t["role"] != "assistant":
                    err(tw, "tool on a user turn")
                if set(tool) != {"kind", "input", "output"} or tool["kind"] not in (
                    "shell",
                    "agent",
                ):
                    err(tw, "tool must be {kind: shell|agent, input, output}")
            turns[f"s{si}:{t['id']}"] = t
            turn_time[f"s{si}:{t['id']}"] = T(t["at"])
        if "compact_after" in s and s["compact_after"] not in {
            t["id"] for t in s["turns"] if t["role"] == "assistant"
        }:
            err(w, "compact_after must name an assistant turn")
        if "injected" in s:
            turns[f"s{si}:injected"] = {"role": "host"}
        if "compact_after" in s:
            turns[f"s{si}:compact"] = {"role": "host"}
        sess_end.append(last)
        prev_end = last
    all_end = prev_end

    # memories
    mems = {}
    for m in case["memories"]:
        w = f"{cid} {m.get('id')}"
        if set(m) != MEMORY_KEYS:
            err(
                w,
                f"memory keys differ: missing {sorted(MEMORY_KEYS - set(m))}, extra {sorted(set(m) - MEMORY_KEYS)}",
            )
            continue
        if not re.fullmatch(r"m\d+", m["id"]) or m["id"] in mems:
            err(w, "memory id must be unique m<n>")
        mems[m["id"]] = m
        ft = m["from_turn"]
        if ft not in turns or turns[ft]["role"] != "user":
            err(w, f"from_turn {ft} must name a user turn (model text never becomes memory)")
            continue
        si = int(ft.split(":")[0][1:])
        if m["kind"] not in KINDS:
            err(w, "bad kind")
        if m["polarity"] not in POLARITIES:
            err(w, "bad polarity")
        if m["status_after"] not in STATUSES:
            err(w, "bad status_after")
        if not m["statement"].strip():
            err(w, "empty statement")
        if not isinstance(m["global"], bool):
            err(w, "global must be a bool")
        want_ws = None if m["global"] else case["sessions"][si]["workspace"]
        if m["workspace"] != want_ws:
            err(w, f"workspace should be {want_ws}")
        if not ISO.match(m["valid_from"]) or T(m["valid_from"]) != turn_time[ft]:
            err(w, "valid_from must equal the time of from_turn")
        if m["valid_to"] is not None and (
            not ISO.match(m["valid_to"]) or T(m["valid_to"]) <= T(m["valid_from"])
        ):
            err(w, "valid_to must be after valid_from")
    for m in mems.values():
        w = f"{cid} {m['id']}"
        sup = m["supersedes"]
        if sup is not None:
            if sup not in mems or sup == m["id"]:
                err(w, f"supersedes unknown {sup}")
            elif T(mems[sup]["valid_from"]) >= T(m["valid_from"]):
                err(w, "supersedes a newer memory")
            elif mems[sup]["valid_to"] != m["valid_from"]:
                err(w, f"{sup}.valid_to must equal {m['id']}.valid_from")
        succ = [x for x in mems.values() if x["supersedes"] == m["id"]]
        if m["status_after"] == "superseded" and not succ:
            err(w, "superseded but nothing supersedes it")
        if (
            m["status_after"] in ("active", "disputed", "rejected", "pending")
            and m["valid_to"] is not None
        ):
            err(w, f"{m['status_after']} memory with valid_to")
        if m["status_after"] == "retired":
            acts = [
                a
                for a in case["operator_actions"]
                if a["memory"] == m["id"] and a["action"] in ("false_write", "forget")
            ]
            if not acts or m["valid_to"] != acts[-1]["at"]:
                err(w, "retired: valid_to must equal the time of the false_write/forget")

    # hard negatives
    for hn in case["hard_negatives"]:
        if set(hn) != {"from_turn", "why"} or hn["from_turn"] not in turns or not hn["why"].strip():
            err(cid, f"bad hard negative {hn}")

    # operator actions
    prev = None
    for act in case["operator_actions"]:
        if (
            set(act) != {"at", "action", "memory"}
            or act["action"] not in ACTIONS
            or act["memory"] not in mems
        ):
            err(cid, f"bad operator action {act}")
            continue
        at = T(act["at"])
        if prev and at < prev:
            err(cid, "operator actions not in time order")
        prev = at
        si = int(mems[act["memory"]]["from_turn"].split(":")[0][1:])
        if at <= sess_end[si]:
            err(cid, f"{act['action']} of {act['memory']} before its session ended")
    hist = simulate(case, err)

    # query and as_of
    q = case["query"]
    if (
        set(q) != {"text", "cwd", "host", "at"}
        or q["host"] not in HOSTS
        or not q["cwd"].startswith("/")
        or not q["text"].strip()
    ):
        err(cid, f"bad query {q}")
        return
    qat = T(q["at"])
    last_event = max([all_end] + [T(a["at"]) for a in case["operator_actions"]])
    if qat <= last_event:
        err(cid, "query asked before the last session/action")
    qws = deepest_repo(q["cwd"], repos)
    if qws is None:
        err(cid, "query cwd is in none of the repos")
    V, R = T(case["as_of"]["valid_time"]), T(case["as_of"]["recorded_time"])
    if set(case["as_of"]) != {"valid_time", "recorded_time"} or R > qat:
        err(cid, "as_of needs valid_time and recorded_time <= query.at")

    # expectations
    ex, fb, hn = case["expected_ids"], case["forbidden_ids"], case["hard_negative_ids"]
    for lst, name in ((ex, "expected_ids"), (fb, "forbidden_ids"), (hn, "hard_negative_ids")):
        for mid in lst:
            if mid not in mems:
                err(cid, f"{name} names unknown {mid}")
        if len(set(lst)) != len(lst):
            err(cid, f"duplicates in {name}")
    if set(ex) & set(fb):
        err(cid, "an id is both expected and forbidden")
    if set(ex) & set(hn):
        err(cid, "an id is both expected and a hard negative")
    if not hn and not case["hard_negatives"]:
        err(cid, "no distractor at all (hard_negative_ids or hard_negatives)")
    st, ab, reason = case["expected_state"], case["should_abstain"], case.get("expected_reason")
    if st not in STATES or not isinstance(ab, bool):
        err(cid, "bad expected_state / should_abstain")
    if ab and (st != "UNKNOWN" or ex):
        err(cid, "abstaining cases have state UNKNOWN and no expected ids")
    if not ab and (st == "UNKNOWN" or not ex):
        err(cid, "answering cases need a known state and expected ids")
    if ab and reason not in REASONS:
        err(cid, "abstaining cases need an expected_reason")
    if not ab and reason is not None:
        err(cid, "expected_reason only for abstaining cases")
    pols = [mems[m]["polarity"] for m in ex if m in mems]
    if st == "VERIFIED_NEGATIVE" and (not pols or any(p != "deny" for p in pols)):
        err(cid, "VERIFIED_NEGATIVE needs only deny memories expected")
    if st == "VERIFIED_WITH_NEGATIVE_BOUNDARY" and not ("deny" in pols and "assert" in pols):
        err(cid, "VERIFIED_WITH_NEGATIVE_BOUNDARY needs an assert and a deny memory")
    if st == "VERIFIED" and any(p != "assert" for p in pols):
        err(cid, "VERIFIED expects assert memories (a deny answer is VERIFIED_NEGATIVE)")
    words_only = (
        st == "VERIFIED_HISTORICAL" and V == qat
    )  # the time reference is in the question's words

    def in_scope(m):
        return m["global"] or m["workspace"] == qws

    def valid_at(mid):
        m = mems[mid]
        vt = valid_to_known_at(case, hist, mid, R)
        return T(m["valid_from"]) <= V and (vt is None or V < vt)

    def servable(mid):
        m = mems[mid]
        return in_scope(m) and status_at(hist[mid], R) == "active" and valid_at(mid)

    for mid in ex:
        if mid not in mems:
            continue
        m = mems[mid]
        if not in_scope(m):
            err(cid, f"expected {mid} is outside the query's scope")
        s_at = status_at(hist[mid], R)
        if st == "VERIFIED_HISTORICAL":
            if s_at not in ("active", "superseded"):
                err(cid, f"historical answer {mid} was {s_at} at recorded_time")
            if not words_only and not valid_at(mid):
                err(cid, f"historical answer {mid} not valid at valid_time")
        elif not ab and not servable(mid):
            err(cid, f"expected {mid} is not active+valid+in scope at as_of (status {s_at})")
    for mid in fb:
        if mid in mems and servable(mid):
            if reason == "unresolved_conflict" or words_only or "notes" in case:
                info["forbidden_but_servable_explained"] += 1
            else:
                err(
                    cid,
                    f"forbidden {mid} would be a legitimate answer (active, valid, in scope) — explain in notes",
                )
    if st == "VERIFIED_HISTORICAL" and not words_only and V >= qat:
        err(cid, "VERIFIED_HISTORICAL needs a valid_time before the question")

    # reasons
    if reason == "unresolved_conflict":
        conflicting = [
            m for m in fb + hn if m in mems and (servable(m) or status_at(hist[m], R) == "disputed")
        ]
        if not conflicting:
            err(cid, "unresolved_conflict without conflicting or disputed memories")
    if reason == "candidate_or_unverified":
        if not any(
            status_at(hist[m], R) is None and mems[m]["status_after"] not in ("rejected",)
            for m in fb + hn
            if m in mems
        ):
            err(cid, "candidate_or_unverified without an unreviewed candidate at recorded_time")
    if reason == "retired_or_expired":
        if not any(
            status_at(hist[m], R) in ("retired", "superseded") for m in fb + hn if m in mems
        ):
            err(cid, "retired_or_expired without a retired/superseded memory")

    # stale / retired trap
    trap_ids = [m for m in fb + hn if m in mems]

    def recorded_later(mid):
        return any(
            a["memory"] == mid and a["action"] == "approve" and T(a["at"]) > R
            for a in case["operator_actions"]
        )

    is_trap = any(
        status_at(hist[m], R) in ("superseded", "retired", "rejected", "disputed")
        or not valid_at(m)
        or recorded_later(m)
        for m in trap_ids
    )
    if case["stale_or_retired_trap"] and not is_trap:
        err(
            cid,
            "stale_or_retired_trap set but no forbidden/hard-negative memory is stale, retired or out of validity",
        )
    if not isinstance(case["stale_or_retired_trap"], bool):
        err(cid, "stale_or_retired_trap must be a bool")

    # secrets
    for sec in case.get("secret_strings", []):
        if not any(sec in t.get("text", "") for t in turns.values()):
            err(cid, f"secret {sec[:6]}… does not occur in any turn")
        for m in mems.values():
            if sec in m["statement"]:
                err(cid, f"secret leaked into {m['id']}'s statement")
        for f in ("description", "notes"):
            if sec in case.get(f, ""):
                err(cid, f"secret leaked into {f}")
        if sec in q["text"]:
            err(cid, "secret leaked into the query")
        if any(sec in h["why"] for h in case["hard_negatives"]):
            err(cid, "secret leaked into a hard negative's why")

    if category == "cross_agent" and {s["host"] for s in case["sessions"]} != HOSTS:
        err(cid, "cross_agent cases must use both hosts")


# ----------------------------------------------------------------------------- rendering check
def check_rendering(cases: list[dict], err: Problems) -> int:
    """Render every case and re-parse it with the host-format rules: each typed prompt exactly once."""
    n_files = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            man = render.render_case(case, Path(tmp) / case["id"])
            for si, (sess, rs) in enumerate(zip(case["sessions"], man["sessions"], strict=True)):
                n_files += 1
                lines = [json.loads(x) for x in Path(rs["path"]).read_text().splitlines()]
                want = [t["text"] for t in sess["turns"] if t["role"] == "user"]
                if sess["host"] == "claude-code":
                    got = []
                    for d in lines:
                        for k in ("type",):
                            if k not in d:
                                err(case["id"], f"s{si}: claude line without type")
                        if d.get("type") in ("user", "assistant", "system", "progress"):
                            for k in (
                                "uuid",
                                "parentUuid",
                                "sessionId",
                                "timestamp",
                                "cwd",
                                "version",
                                "isSidechain",
                            ):
                                if k not in d:
                                    err(case["id"], f"s{si}: claude {d['type']} line without {k}")
                            if d.get("sessionId") != sess["session_id"]:
                                err(case["id"], f"s{si}: sessionId mismatch")
                        if (
                            d.get("type") == "user"
                            and not d.get("isMeta")
                            and not d.get("isCompactSummary")
                            and isinstance(d["message"]["content"], str)
                        ):
                            got.append(d["message"]["content"])
                else:
                    if (
                        lines[0].get("type") != "session_meta"
                        or lines[0]["payload"]["id"] != sess["session_id"]
                    ):
                        err(case["id"], f"s{si}: codex file must start with its session_meta")
                    got = []
                    for d in lines:
                        if (
                            set(d) - {"timestamp", "type", "payload", "ordinal"}
                            or "payload" not in d
                        ):
                            err(case["id"], f"s{si}: codex line envelope {sorted(d)}")
                        p = d["payload"]
                        if (
                            d["type"] == "response_item"
                            and p.get("type") == "message"
                            and p.get("role") == "user"
                        ):
                            txt = p["content"][0]["text"]
                            if not (
                                txt.startswith("# AGENTS.md instructions for ")
                                or txt.startswith("<environment_context>")
                            ):
                                got.append(txt)
                    ev = [
                        d["payload"].get("message")
                        or d["payload"].get("item", {}).get("content", [{}])[0].get("text")
                        for d in lines
                        if d["type"] == "event_msg"
                        and (
                            d["payload"]["type"] == "user_message"
                            or (
                                d["payload"]["type"] == "item_completed"
                                and d["payload"]["item"]["type"] == "UserMessage"
                            )
                        )
                    ]
                    if ev != want:
                        err(
                            case["id"],
                            f"s{si}: codex typed-prompt events differ from the user turns",
                        )
                if got != want:
                    err(case["id"], f"s{si}: rendered human prompts differ from the user turns")
                for ref, pos in rs["turns"].items():
                    if pos["line"] < 1 or pos["line"] > len(lines):
                        err(case["id"], f"s{si}: manifest line for {ref} out of range")
                for extra in ("injected", "compact"):
                    if (
                        f"s{si}:{extra}" in {h["from_turn"] for h in case["hard_negatives"]}
                        and extra not in rs["turns"]
                    ):
                        err(case["id"], f"s{si}: hard negative {extra} was not rendered")
    return n_files


# ----------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default=str(HERE))
    ap.add_argument("--no-render", action="store_true")
    a = ap.parse_args(argv)
    err = Problems()
    info: collections.Counter = collections.Counter()
    cases: list[dict] = []
    per_cat = {}
    seen = set()
    for cat in CATEGORIES:
        p = Path(a.cases) / f"{cat}.json"
        if not p.exists():
            err(cat, f"missing {p.name}")
            continue
        doc = json.loads(p.read_text())
        if (
            set(doc) != {"schema_version", "category", "cases"}
            or doc["schema_version"] != 1
            or doc["category"] != cat
        ):
            err(p.name, "top level must be {schema_version: 1, category, cases}")
        per_cat[cat] = len(doc["cases"])
        for c in doc["cases"]:
            if c.get("id") in seen:
                err(c.get("id"), "duplicate case id")
            seen.add(c.get("id"))
            check_case(c, cat, err, info)
            cases.append(c)

    n = len(cases)
    if n < MIN_CASES:
        err("total", f"{n} cases < {MIN_CASES}")
    for cat in CATEGORIES:
        if per_cat.get(cat, 0) < MIN_PER_CATEGORY:
            err(cat, f"{per_cat.get(cat, 0)} cases < {MIN_PER_CATEGORY}")
    sess_hosts = collections.Counter(s["host"] for c in cases for s in c["sessions"])
    q_hosts = collections.Counter(c["query"]["host"] for c in cases)
    tot = sum(sess_hosts.values()) or 1
    for h in HOSTS:
        share = sess_hosts[h] / tot
        if not HOST_BAND[0] <= share <= HOST_BAND[1]:
            err("hosts", f"{h} has {share:.0%} of sessions, outside {HOST_BAND}")
        qs = q_hosts[h] / (n or 1)
        if not HOST_BAND[0] <= qs <= HOST_BAND[1]:
            err("hosts", f"{h} asks {qs:.0%} of queries, outside {HOST_BAND}")
    abstain = sum(c["should_abstain"] for c in cases) / (n or 1)
    trap = sum(c["stale_or_retired_trap"] for c in cases) / (n or 1)
    if abstain < MIN_ABSTAIN:
        err("ratio", f"abstain {abstain:.1%} < {MIN_ABSTAIN:.0%}")
    if trap < MIN_TRAP:
        err("ratio", f"stale/retired traps {trap:.1%} < {MIN_TRAP:.0%}")

    n_files = 0
    if not a.no_render and not err.items:
        n_files = check_rendering(cases, err)

    # report
    print(f"cases: {n}")
    for cat in CATEGORIES:
        cs = [c for c in cases if c["category"] == cat]
        sh = collections.Counter(s["host"] for c in cs for s in c["sessions"])
        qh = collections.Counter(c["query"]["host"] for c in cs)
        print(
            f"  {cat:14s} {len(cs):3d}  sessions cc/cx {sh['claude-code']:2d}/{sh['codex']:2d}  "
            f"queries cc/cx {qh['claude-code']:2d}/{qh['codex']:2d}  abstain {sum(c['should_abstain'] for c in cs):2d}  "
            f"traps {sum(c['stale_or_retired_trap'] for c in cs):2d}"
        )
    print(f"sessions by host: {dict(sess_hosts)}; queries by host: {dict(q_hosts)}")
    print(f"should_abstain: {abstain:.1%}   stale_or_retired_trap: {trap:.1%}")
    print("expected_state:", dict(collections.Counter(c["expected_state"] for c in cases)))
    print(
        "expected_reason:",
        dict(collections.Counter(c.get("expected_reason") for c in cases if c["should_abstain"])),
    )
    print(
        "memories:",
        sum(len(c["memories"]) for c in cases),
        "by status:",
        dict(collections.Counter(m["status_after"] for c in cases for m in c["memories"])),
    )
    print(
        "hard negatives (turns):",
        sum(len(c["hard_negatives"]) for c in cases),
        " cases with secrets:",
        sum(1 for c in cases if c.get("secret_strings")),
    )
    if n_files:
        print(f"rendered and re-parsed {n_files} transcript files")
    if info:
        print("info:", dict(info))
    if err.items:
        print(f"\n{len(err.items)} problem(s):")
        for p in err.items:
            print("  -", p)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
