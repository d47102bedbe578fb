"""How a project gets out, said with its subject and its means (issue 13): "the api ships via
helm", "X deploys with capistrano from the bastion" are what the rules propose, beside
hard negatives of the same shape (by hand, with errors, a question, a hypothetical, someone's
habit). The sentences were written for this test, not taken from any corpus split."""

from __future__ import annotations

import pytest
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.extraction.rules import load_rules
from memvet.store.vocabulary import Kind

RULE = "fact.deploys-via"

PROPOSED = (
    "The billing service deploys with capistrano, `cap production deploy`, from the bastion.",
    "ledger deploys via argo cd; merging to main syncs the app.",
    "The handbook gets published to github pages by the docs workflow.",
    "Our api ships via helm charts to the eks cluster.",
    "The cli is released through goreleaser when a tag is pushed.",
)
NOT_BY_THIS_RULE = (
    "The docs are published by hand this week.",
    "The worker deploys with errors every other time.",
    "Does the api deploy via argo?",
    "If the api deploys with capistrano we are fine.",
    "He deploys with ansible from his laptop.",
)


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(load_rules(None))


@pytest.mark.parametrize("text", PROPOSED)
def test_a_deploy_route_with_its_means_is_proposed(extractor, text):
    found = extractor.extract(text)
    assert len(found) == 1 and RULE in found[0].reasons, found
    assert found[0].kind in (Kind.FACT, Kind.PROCEDURE)  # a command in it makes it a procedure


@pytest.mark.parametrize("text", NOT_BY_THIS_RULE)
def test_one_off_broken_asked_or_someone_elses_is_not_proposed_by_it(extractor, text):
    assert all(RULE not in x.reasons for x in extractor.extract(text))
