"""The redaction rule-set version, outside the `redaction` package so the no-daemon hook reads it
without running that package's `__init__` (which loads the redactor and its ~130 patterns).
tests/tools/refresh_secret_rules.py writes GITLEAKS_SHA256 when it pins a new gitleaks.toml,
refresh_np_kf_rules.py NP_KF_SHA256 for the Nosey Parker / Kingfisher copy;
tests/store/test_secret_rules.py checks both match the pinned copies. Bump
OWN_DETECTORS_VERSION when memvet's own detectors change what they redact: stored text is swept
again (store/redaction_sweep.py) whenever RULESET_VERSION changes."""

GITLEAKS_SHA256 = "e163e53b9e7e8a8511e77271e2b323ed057759542a6d988258afe3a1fa329caf"
NP_KF_SHA256 = "398d2d507346de6c5eb03f9d821764138e3e05fbfa60c8d639444522b5432544"
OWN_DETECTORS_VERSION = 19
RULESET_VERSION = (
    f"gitleaks-{GITLEAKS_SHA256[:12]}+npkf-{NP_KF_SHA256[:12]}+memvet-{OWN_DETECTORS_VERSION}"
)


def swept_with_older_rules(recorded: str | None) -> bool:
    """`recorded`: the rule-set version store_meta says the store's text was last swept with
    (fast_read.ruleset_recorded; None: never). Another one means the sweep has not run yet with
    this version's rules: what is served from the store must be redacted again on the way out
    (redaction/served.py). The no-daemon hook and `memvet recall`'s own path both ask this."""
    return recorded != RULESET_VERSION
