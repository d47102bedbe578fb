"""Adjudicate the third-party labelled secrets (../shared/benchdata/secrets) against memvet's
policy (docs/threat-model.md, "What counts as a secret"), once, into a committed file:

    tests/corpus/secrets/adjudicated.tsv   row id <TAB> policy label <TAB> one-line reason

Rows whose policy label differs from the corpus' `text_label` are listed, and the rows of a
category once adjudicated wrongly (typed bodies behind a glued provider prefix), label kept,
so the decision is on record either way. The criteria look
at the row (its text, its rule's name and categories), never at what memvet's redactor does with
it, so the adjudicated figures do not grade the detector by its own answers:

- secret → not_secret
  * identifier: the row's rule finds a public identifier (rule categories identifier / domain /
    infrastructure without "secret", or a rule named "… ID", "… Domain", "… URL", "… Username",
    "… Bucket", "… Hostname", "… Identifier", "ARN", an IP address; never a rule whose name says key, token,
    secret, password)
    and the text has no secret word (secret, passw, token, pwd, private, webhook) besides;
  * placeholder: the credential (detect-secrets' expected secret, else what the row's own rule
    captures, last group) is a documentation placeholder — mostly one character (aaaa…), a run of x, *****,
    #####, a whole-value template (${VAR}, $VAR, #{…}, %VAR%, {{…}}, <…>), an example word
    (example, sample, dummy, placeholder, fake, insert, …here, your…, redacted; in a host name,
    not), the slot's own name as a CONSTANT (`-p PASSWORD`, `access_token=ACCESS_TOKEN`: a
    reference; a lower-case `password "password"` is a weak literal), or the RFC 4122 example UUID 123e4567-e89b-….
    Typed sequences (abcdef123456…) are NOT placeholders next to a secret word: a person may use
    one as a real, weak secret ("when unsure, redact");
  * nonce: the value of a CSRF/XSRF or authenticity token, nothing else secret in the text (a
    per-session form nonce grants no access when pasted anywhere);
  * typed, no context: a typed sequence (abcdef…, 123456…, xyzxyzxyz, a1b2c3…; abcd1234efgh…
    and a repeated chunk of up to 8 unless non-run letters lead the value) in a text with
    no secret word at all (secret, passw, pwd, token, key, private, access, auth, credential,
    bearer) and no provider prefix on the value or glued right before it in the text (sk_…,
    sbp_…, NF-… stay secrets, also where the rule captures only the body) — a provider
    name alone does not make "cloudsmith 1234567890abcdef…" a credential;
  * empty: the row has no text (a path-only rule).
  An identifier rule's row whose text also holds a live literal (below: a URL's password) stays
  a secret. Where the row's own rule cannot run and no expected secret is given, the credential
  judged is the text's last token (`AP6xxxxxxxxxx` in `X-JFrog-Art-Api: AP6xxxxxxxxxx`).
- not_secret → secret
  * live-shaped Google API key: AIza + 35 characters, published in code (gitleaks lists such keys
    as false positives because they are often public Firebase keys; by policy an API key grants
    access and is redacted);
  * file-type keyword case: a detect-secrets keyword negative whose value the same corpus labels
    a secret in another file type (the label depends on a file extension the text lacks);
  * live literal: a literal of 6+ characters assigned to a name that says password, secret,
    token or key (not a name about the secret: public…, …_id, …_url, …_name, …_path, vault…), or
    the password of a URL's user:password@, that is not a placeholder by the criteria above
    (rule-relative negatives: "no Twitch rule fires" is not "no secret here"; a CSRF token's
    name is about a nonce, not a credential); the same for
    .NET's `<add key="…Password" value="…"/>`;
  * provider prefix: a token that starts with a provider's published token prefix (glpat-,
    xoxb-, sk-ant-, pypi-, … the list below) and a body of 8+ characters that is not a
    placeholder: policy, "a provider's prefix makes a token one even with a made-up body";
  * credential call: OAuth(…), …Credential(…), …BasicAuth(…) given two or more literals of 16+
    characters, none a placeholder (consumer keys and secrets, access tokens);
  * webhook URL: a URL whose host or path says hook (hooks.zapier.com, …/webhook/…) with a
    path segment of 8+ letters and digits that is not a placeholder: policy, "a webhook URL
    carries its secret in its path".

    python tests/tools/adjudicate_secrets.py [--shared ../shared]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import string
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "corpus" / "secrets" / "adjudicated.tsv"
_IDENTIFIER_NAME = re.compile(
    r"(?i)\b(?:id|domain|url|uri|username|user name|bucket|hostname|host|"
    r"arn|account name|storage name|org(?:anization)? id|endpoint|identifier)\b|"
    r"(?<![a-z])ip(?![a-z])"  # an IP address is a host's (detect-secrets' ip_public)
)
_SECRETISH_NAME = re.compile(r"(?i)secret|token|key|password|credential|private")
_PLACEHOLDER = re.compile(
    r"(?i:xxxx)|\*\*\*\*\*|#####|"
    r"^\s*[\"']?(?:\$\{[\w.\-]+\}|\$[A-Za-z_]\w*|#\{[^}]*\}|%[A-Za-z_]+%|\{\{[^}]*\}\}|<[^<>]+>)[\"']?\s*$|"
    r"(?i:example|sample|dummy|placeholder|fake|insert|goes here|here\b|redacted|"
    r"your[_\-]?(?:pass|key|token|secret|api))|123e4567-e89b-12d3"
)


# `-p PASSWORD`, `access_token=ACCESS_TOKEN`: the slot's name as a CONSTANT, a reference. (A
# lower-case `password "password"` or `user:secret@` is a weak literal: policy, "however weak".)
_SLOT_NAME = re.compile(
    r"[\"']?(?:PASS(?:WORD|WD)?|PWD|SECRET|TOKEN|ACCESS_TOKEN|API_?KEY|AUTH_TOKEN)[\"']?"
)


def placeholder(value: str) -> str | None:
    """What makes `value` a documentation placeholder, or None. (A host or URL is not judged
    by its words: example.com next to a real password says nothing about the password.)"""
    if len(value) >= 6 and max(map(value.count, set(value))) * 5 >= len(value) * 3:
        return "one character repeated"
    if _SLOT_NAME.fullmatch(value):
        return "the value only names its slot"
    found = _PLACEHOLDER.search(value)
    if found and found.group(0).lower() in _EXAMPLE_WORDS and _HOST.search(value):
        return None
    return f"contains {found.group(0)[:12]!r}" if found else None


_TYPED = re.compile(
    r"(?i:abcdef|bcdefg|ghijkl|mnopqr|uvwxyz)|123456|234567|987654|(\w{3,6})\1\1|"
    r"(?i:a1b2c3|1a2b3c)"
)
# Also typed: alphabet runs of four (abcd1234efgh5678…) and a chunk of up to 8 repeated
# (abcd4567abcd4567…), unless letters that are no run lead the value: a provider's prefix glued
# without a separator (`dapiabcd1234…`, `EZAK1234abcd…`) still says what the token is.
_ALPHABET_RUNS = "|".join(string.ascii_lowercase[i : i + 4] for i in range(23))
_TYPED_SHORT = re.compile(rf"(?i:{_ALPHABET_RUNS})|(\w{{3,8}})\1\1")
_LEADING_LETTERS = re.compile(r"[A-Za-z]{2,}")


def is_typed(value: str) -> bool:
    if _TYPED.search(value):
        return True
    lead = _LEADING_LETTERS.match(value)
    prefixed = lead is not None and not re.match(rf"(?i:{_ALPHABET_RUNS})", value)
    return not prefixed and _TYPED_SHORT.search(value) is not None


# sk_…, gsk_…, sbp_…, NF-…: a provider's prefix says what it is, typed body or not ("when unsure").
_PROVIDER_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9]{1,11}[_\-.]")
# The same prefix glued right before the value in the text: a rule often captures only the body
# (`sbp_` + the 40 characters it captures), and the prefix still says what the token is.
_GLUED_PREFIX = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9]{1,11}[_\-.]\Z")
_CONTEXT_WORD = re.compile(
    r"(?i)secret|passw|pwd|(?<![a-z])pw(?![a-z])|token|key|private|access|auth|credential|bearer"
)


def typed_without_context(value: str, text: str) -> bool:
    """A typed sequence (abcdef…, 123456…, xyzxyzxyz, a1b2c3…) with no secret word anywhere in
    the text: nothing says it is a credential (policy: such a value alone is not one)."""
    return (
        is_typed(value)
        and _CONTEXT_WORD.search(text) is None
        and _PROVIDER_PREFIX.match(value) is None
        and not glued_prefix(value, text)
    )


def glued_prefix(value: str, text: str) -> bool:
    """A provider-style prefix (`sbp_`, `NF-`) sits right before `value` somewhere in `text`."""
    return any(
        _GLUED_PREFIX.search(text, 0, m.start()) for m in re.finditer(re.escape(value), text)
    )


_EXAMPLE_WORDS = {"example", "sample", "dummy", "placeholder"}
_HOST = re.compile(r"://|@|^[\w.\-]+\.(?:com|net|org|io)\b")
# A literal assigned to a name that says secret (policy: any literal password, key or token is
# the secret itself), and the password slot of a URL; the name must not be about the secret.
_ASSIGNED = re.compile(
    r"(?i)(?P<name>[\w.\-]*(?:pass(?:word|wd)?|pwd|(?<![a-z])pat|secret|token|api_?key|apikey|"
    r"access_?key|private_?key|license_?key|stream_?key|deploy_?key)(?:[_.\-]?key)?)"
    r"[\"']?[ \t]*(?:=|:|=>)[ \t]*[\"']?"
    r"(?P<v>[^\s\"',;`)]{6,})"
)
_XML_PASSWORD = re.compile(
    r"(?i)key\s*=\s*[\"'](?P<name>[^\"']*(?:password|secret|token|apikey|api_key))[\"']\s+"
    r"value\s*=\s*[\"'](?P<v>[^\"']{6,})[\"']"
)
# Published token prefixes (provider documentation; independent of memvet's detectors).
_PROVIDER_TOKEN = re.compile(
    r"(?<![A-Za-z0-9])(?P<prefix>gl(?:pat|dt|ptt|rt|agent|oas|imt|cbt|soat|ffct|ft|rtr)-|GR1348941|"
    r"sk-ant-(?:api|admin)\d\d-|sk-proj-|sk-svcacct-|sk_live_|sk_test_|rk_live_|"
    r"xox[abposre]-|xapp-|pypi-|gh[pousr]_|github_pat_|sgp_(?:local_)?|nvapi-|flb_live_|hf_|"
    r"npm_|dop_v1_|shpat_|shpss_|glc_|lin_api_|pscale_tkn_|bedrock-api-key-|live_\d{6,}_|"
    r"100\d\.(?=[a-f0-9]{32}\.[a-f0-9]{32}))"
    r"(?P<v>[A-Za-z0-9_\-]{8,}+)(?![#*…]|\.\.|\.(?:jpe?g|png|gif|svg|html?|js|css|py|md|txt)\b)"
)
_WEBHOOK_URL = re.compile(
    r"https?://[^\s/\"']*hook[^\s/\"']*(?:/[^\s\"']*)?|https?://[^\s\"']*/webhooks?/[^\s\"']+", re.I
)
_PATH_TOKEN = re.compile(r"[A-Za-z0-9]{8,}")
# OAuth('key', 'secret', …), NetworkCredential("u", "p"), HTTPBasicAuth(…): the literals passed in.
_CREDENTIAL_CALL = re.compile(
    r"(?:OAuth\d?|\w*Credentials?|\w*BasicAuth)\((?P<args>[^()]{0,600})\)"
)
_CALL_LITERAL = re.compile(r"""["']([^"'\s]{16,})["']""")
_URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.\-]*://[^\s:/@]+:(?P<v>[^\s@/]{4,})@")
_ABOUT_THE_SECRET = re.compile(
    r"(?i)public|csrf|xsrf|authenticity|nonce|(?:^|[_.\-])(?:id|url|uri|name|path|file|type|bucket|vault|hash|md5)$|"
    r"[a-z](?:Id|Url|Name|Path|Vault)$"
)
_NOT_A_LITERAL = re.compile(r"^(?:\\?[$%{<]|true$|false$|null$|none$|os\.|process\.|env\.)", re.I)


def live_literal(text: str) -> str | None:
    """The reason a not_secret row holds a secret by policy, or None."""
    for match in _ASSIGNED.finditer(text):
        value = match.group("v")
        if (
            not _ABOUT_THE_SECRET.search(match.group("name"))
            and not _NOT_A_LITERAL.match(value)
            and placeholder(value) is None
            and "(" not in value
        ):
            return f"literal assigned to '{match.group('name')[-24:]}': a secret by policy"
    for match in _CREDENTIAL_CALL.finditer(text):
        literals = _CALL_LITERAL.findall(match.group("args"))
        if len(literals) >= 2 and all(placeholder(v) is None for v in literals):
            return "literal credentials passed to a credential call: secrets by policy"
    for match in _XML_PASSWORD.finditer(text):
        if placeholder(match.group("v")) is None:
            return (
                f"literal value of the config key '{match.group('name')[-24:]}': a secret by policy"
            )
    for match in _PROVIDER_TOKEN.finditer(text):
        body = match.group("v")
        if placeholder(body) is None and any(map(str.isdigit, body)):
            return f"provider token prefix {match.group('prefix')!r}: a token by policy"
    for match in _WEBHOOK_URL.finditer(text):
        path = match.group(0).split("://", 1)[1].partition("/")[2]
        if any(
            placeholder(t) is None for t in _PATH_TOKEN.findall(path) if any(c.isdigit() for c in t)
        ):
            return "webhook URL with a token in its path: a secret by policy"
    for match in _URL_PASSWORD.finditer(text):
        if placeholder(match.group("v")) is None and match.group("v").lower() not in (
            "password",
            "pass",
            "secret",
        ):
            return "password in a URL's user:password@ slot"
    return None


# A CSRF/XSRF token or Rails authenticity token: a per-session form nonce, useless without the
# session it belongs to (policy: a secret grants access when pasted somewhere).
_NONCE_ASSIGNED = re.compile(
    r"(?i)(?:csrf|xsrf|authenticity)[_.\-]?token[\"']?[ \t]*(?:=|:|=>)[ \t]*[\"']?"
    r"(?P<v>[^\s\"',;]+)"
)


def nonce_value(value: str, text: str) -> bool:
    """`value` is what a CSRF/XSRF token is set to, and nothing else in the text is a secret."""
    found = [m for m in _NONCE_ASSIGNED.finditer(text) if value in m.group("v")]
    rest = _NONCE_ASSIGNED.sub("", text)
    return bool(found) and live_literal(rest) is None and _SECRET_WORD.search(rest) is None


_SECRET_WORD = re.compile(r"(?i)secret|passw|token|pwd|private|webhook")
_GOOGLE_KEY = re.compile(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_\-]{35}(?![A-Za-z0-9_\-])")


_LAST_TOKEN = re.compile(r"[^\s=:\"'`,;]{4,}")


def _value(row: dict, oracles: dict) -> str | None:
    """The credential the row is about: detect-secrets' expected secret, else what the row's own
    third-party rule captures (its last non-empty group: in a (user, password) rule, the password), else None (not judged: the whole text
    would put a placeholder host next to a real password)."""
    if row.get("expected_secret"):
        return row["expected_secret"]
    pattern = oracles.get(row["rule_id"])
    match = pattern.search(row["text"]) if pattern is not None else None
    if match is None:  # the rule cannot run here: judge the text's last token
        tokens = _LAST_TOKEN.findall(row["text"]) if pattern is None else []
        return tokens[-1] if tokens else None
    return next((g for g in reversed(match.groups()) if g), match.group(0))


def adjudicate(rows: list[dict], rules: list[dict], oracles: dict) -> list[tuple[str, str, str]]:
    categories = {r["id"]: set(r.get("categories") or ()) for r in rules}
    names = {r["id"]: r.get("name", "") for r in rules}
    keyword_secrets = {
        row["expected_secret"]
        for row in rows
        if row["rule_id"] == "KeywordDetector"
        and row["text_label"] == "secret"
        and row.get("expected_secret")
    }
    out = []
    for row in rows:
        rule, text = row["rule_id"], row["text"]
        if row["text_label"] == "secret":
            cats, name = categories.get(rule, set()), names.get(rule, row.get("rule_name", ""))
            if not text.strip():
                out.append(
                    (row["id"], "not_secret", "empty text: a path-only rule, nothing to redact")
                )
            elif (
                not _SECRETISH_NAME.search(name)
                and not _SECRET_WORD.search(text)
                and live_literal(text) is None
                and (
                    (cats & {"identifier", "domain", "infrastructure"} and "secret" not in cats)
                    or _IDENTIFIER_NAME.search(name)
                )
            ):
                out.append(
                    (
                        row["id"],
                        "not_secret",
                        f"public identifier: rule '{name}' finds an id/host/name",
                    )
                )
            elif (value := _value(row, oracles)) is not None and nonce_value(value, text):
                out.append(
                    (row["id"], "not_secret", "a CSRF/XSRF form nonce: grants no access alone")
                )
            elif value is not None and (why := placeholder(value)) is not None:
                out.append((row["id"], "not_secret", f"documentation placeholder: {why}"))
            elif (
                value is not None
                and typed_without_context(value, text)
                and live_literal(text) is None
            ):
                out.append(
                    (row["id"], "not_secret", "typed sequence and no secret word in the text")
                )
            elif (
                value is not None
                and is_typed(value)
                and _CONTEXT_WORD.search(text) is None
                and glued_prefix(value, text)
            ):  # listed though the label stays: these rows were once adjudicated the other way
                out.append(
                    (row["id"], "secret", "typed body behind a provider prefix: a token by policy")
                )
        else:
            if rule == "gcp-api-key" and _GOOGLE_KEY.search(text) and not _PLACEHOLDER.search(text):
                out.append(
                    (
                        row["id"],
                        "secret",
                        "live-shaped Google API key (AIza…): an API key grants access",
                    )
                )
            elif rule == "KeywordDetector" and any(value in text for value in keyword_secrets):
                out.append(
                    (
                        row["id"],
                        "secret",
                        "keyword case labelled secret in another file type; no extension here",
                    )
                )
            elif (why := live_literal(text)) is not None:
                out.append((row["id"], "secret", why))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    args = parser.parse_args(argv)
    data = args.shared / "benchdata" / "secrets"
    with gzip.open(data / "secrets_labelled.jsonl.gz", "rt") as fh:
        rows = [json.loads(line) for line in fh]
    with gzip.open(data / "np_kf_rules.jsonl.gz", "rt") as fh:
        rules = [json.loads(line) for line in fh]
    sys.path.insert(0, str(ROOT / "tests" / "bench"))
    from bench_secrets import load_oracles  # the third-party rules, compiled as the bench does

    decided = adjudicate(rows, rules, load_oracles())
    OUT.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        "# row id\tpolicy label\treason  (tests/tools/adjudicate_secrets.py; policy: docs/threat-model.md)"
    ]
    lines += ["\t".join(entry) for entry in decided]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    labels = {row["id"]: row["text_label"] for row in rows}
    kept = sum(labels[row_id] == label for row_id, label, _ in decided)
    flips = sum(label == "secret" and labels[row_id] != label for row_id, label, _ in decided)
    print(
        f"{len(decided)} rows adjudicated ({len(decided) - flips - kept} secret→not_secret, "
        f"{flips} not_secret→secret, {kept} listed with their label kept)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
