"""Scope stays one rule across members and teams (a property test): a member's local reads in
a workspace show the team memories of that workspace's remote and the team-wide ones of its
own team; never another team's, never another remote's, never a rejected one."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memvet.store.records import Reader
from memvet.store.team import approval
from memvet.store.team.members import admit, create_team, join_team
from memvet.store.team.outbox import note_workspace
from memvet.store.team.session import open_session
from memvet.store.team.share import propose_team
from memvet.store.team.sync import sync_once
from memvet.store.team.tombstones import reject

OTHER_REMOTE = "https://github.com/acme/infra"
_n = itertools.count()


@pytest.fixture
def two_teams(tmp_path, team_url, member_of):
    """Team 0: members 0 (admin) and 1; team 1: members 2 (admin) and 3; one database. Each
    member has a clone of the shared remote (`repo`) and one of OTHER_REMOTE (`other`)."""
    members = []
    for first, second in (("a", "b"), ("c", "d")):
        home_a, home_b = tmp_path / first, tmp_path / second
        home_a.mkdir()
        home_b.mkdir()
        admin = create_team(home_a, team_url, first)
        joined = join_team(home_b, team_url, second, team_id=admin.team_id)
        admit(admin, joined["member"], role="approver")
        members += [member_of(home_a, admin), member_of(home_b, open_session(home_b))]
    for member in members:
        other = member.home.parent / f"{member.home.name}-infra"
        (other / ".git").mkdir(parents=True)
        (other / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {OTHER_REMOTE}\n')
        member.other = str(other)
        note_workspace(member.store, member.other)
    return members, {}  # the model: (team, where) -> statements the team approved


def _visible(member, workspace):
    reader = Reader(user=member.store.user, workspace=workspace)
    return {m.statement for m in member.store.list_memories(reader)}


OPS = st.lists(
    st.tuples(st.integers(0, 3), st.sampled_from(("repo", "other", None)), st.booleans()),
    min_size=1,
    max_size=4,
)


@pytest.mark.slow
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=OPS)
def test_reads_stay_in_scope_across_members_and_teams(two_teams, ops):
    members, model = two_teams
    for proposer, where, approved in ops:
        author = members[proposer]
        peer = members[proposer ^ 1]  # the other member of the same team approves
        statement = f"statement {next(_n)} for {where}"
        folder = None if where is None else getattr(author, where)
        cid = propose_team(author.store, author.session.team_id, statement, "fact", folder)
        sync_once(author.store, author.session)
        if approved:
            approval.approve(peer.session, cid)
            model.setdefault((proposer // 2, where), set()).add(statement)
        else:
            reject(peer.session, cid)
    for member in members:
        sync_once(member.store, member.session)
    everything = set().union(*model.values()) if model else set()
    for index, member in enumerate(members):
        team = index // 2
        shared = model.get((team, None), set())
        assert _visible(member, None) == shared
        for where in ("repo", "other"):
            expected = shared | model.get((team, where), set())
            seen = _visible(member, getattr(member, where))
            assert seen == expected
            assert not (seen & (everything - expected))  # another team's or remote's: never
