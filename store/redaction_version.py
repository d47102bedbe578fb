"""The redaction rule-set version, outside the `redaction` package so the no-daemon hook reads it
without running that package's `__init__` (which loads the redactor and its ~130 patterns).
tests/tools/refresh_secret_rules.py writes GITLEAKS_SHA256 when it pins a new gitleaks.toml; tests/store/test_secret_rules.py checks it matches the pinned copy. Bump
OWN_DETECTORS_VERSION when memvet's own detectors change what they redact: stored text is swept
again (store/redaction_sweep.py) whenever RULESET_VERSION changes."""

GITLEAKS_SHA256 = "e163e53b9e7e8a8511e77271e2b323ed057759542a6d988258afe3a1fa329caf"
OWN_DETECTORS_VERSION = 16
RULESET_VERSION = f"gitleaks-{GITLEAKS_SHA256[:12]}+memvet-{OWN_DETECTORS_VERSION}"
