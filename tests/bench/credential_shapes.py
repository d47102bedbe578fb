"""Realistic credentials memvet makes up itself (not taken from any rule set's examples), in the
shapes of 30+ providers (and the forms issue 14 measured as misses), planted in real-shaped Claude Code transcripts: prompts, a pasted .env,
a log excerpt, tool output. Used by tests/store/test_planted_credentials.py (a fast subset, end
to end on every read surface) and bench_secrets.py (all of them, on the redactor).

Each shape returns (text as a person would paste it, the secret parts that must never show).
Values come from a seeded RNG: the same run, the same credentials; nothing is committed.
"""

from __future__ import annotations

import base64
import json
import random
import string
import zlib

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B32 = string.ascii_uppercase + "234567"
B64 = ALNUM + "+/"


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _github(rng: random.Random, prefix: str) -> str:
    body, crc, tail = _pick(rng, ALNUM, 30), None, ""
    crc = zlib.crc32(body.encode())
    digits = string.digits + string.ascii_uppercase + string.ascii_lowercase
    while crc:
        crc, rest = divmod(crc, 62)
        tail = digits[rest] + tail
    return prefix + body + tail.rjust(6, "0")


def _jwt(rng: random.Random) -> str:
    enc = lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip("=")  # noqa: E731
    return (
        enc({"alg": "HS256", "typ": "JWT"})
        + "."
        + enc({"sub": _pick(rng, HEX, 12), "iat": rng.randrange(10**9)})
        + "."
        + _pick(rng, ALNUM + "-_", 43)
    )


def _pem(rng: random.Random) -> tuple[str, list[str]]:
    lines = [_pick(rng, B64, 64) for _ in range(8)]
    return (
        "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END RSA PRIVATE KEY-----",
        lines,
    )


def _word_password(rng: random.Random) -> str:
    return (
        rng.choice(["Falcon", "River", "Maple", "Cobalt"])
        + _pick(rng, string.digits, 3)
        + rng.choice("!#%&")
        + _pick(rng, string.ascii_lowercase, 4)
    )


def shapes(rng: random.Random) -> dict[str, tuple[str, list[str]]]:
    """One credential of every shape, as (pasted text, secret parts)."""
    aws_id, aws_secret = (
        "AKIA" + _pick(rng, B32, 16),
        rng.choice(["/", "+", ""]) + _pick(rng, B64, 40)[:40],
    )
    aws_secret = aws_secret[:40]
    user, pw = rng.choice(["deploy", "svc_app", "dana"]), _word_password(rng)
    k8s = base64.b64encode(_pick(rng, ALNUM, 18).encode()).decode()
    pem, pem_lines = _pem(rng)
    out = {
        "aws-key-pair": (
            f"AWS_ACCESS_KEY_ID={aws_id}\nAWS_SECRET_ACCESS_KEY={aws_secret}",
            [aws_id, aws_secret],
        ),
        "github-classic": ((t := _github(rng, "ghp_")), [t]),
        "github-oauth": ((t := _github(rng, "gho_")), [t]),
        "github-fine-grained": (
            (t := "github_pat_" + _pick(rng, ALNUM, 22) + "_" + _pick(rng, ALNUM, 59)),
            [t],
        ),
        "gitlab-pat": ((t := "glpat-" + _pick(rng, ALNUM + "-_", 20)), [t]),
        "slack-bot": (
            (
                t := f"xoxb-{rng.randrange(10**10, 10**11)}-{rng.randrange(10**12, 10**13)}-"
                f"{_pick(rng, ALNUM, 24)}"
            ),
            [t],
        ),
        "slack-user": (
            (
                t := f"xoxp-{rng.randrange(10**10, 10**11)}-{rng.randrange(10**10, 10**11)}-"
                f"{rng.randrange(10**12, 10**13)}-{_pick(rng, HEX, 32)}"
            ),
            [t],
        ),
        "slack-webhook": (
            (
                t
                := f"https://hooks.slack.com/services/T{_pick(rng, B32, 8)}/B{_pick(rng, B32, 10)}/"
                f"{_pick(rng, ALNUM, 24)}"
            ),
            [t.rsplit("/", 1)[1]],
        ),
        "stripe-secret": ((t := "sk_live_" + _pick(rng, ALNUM, 99)), [t]),
        "stripe-restricted": ((t := "rk_live_" + _pick(rng, ALNUM, 99)), [t]),
        "stripe-webhook": ((t := "whsec_" + _pick(rng, ALNUM, 32)), [t]),
        "openai-project": (
            (
                t := "sk-proj-"
                + _pick(rng, ALNUM + "-_", 74)
                + "T3BlbkFJ"
                + _pick(rng, ALNUM + "-_", 74)
            ),
            [t],
        ),
        "anthropic": ((t := "sk-ant-api03-" + _pick(rng, ALNUM + "-_", 93) + "AA"), [t]),
        "google-api-key": ((t := "AIza" + _pick(rng, ALNUM + "-_", 35)), [t]),
        "google-oauth-access": ((t := "ya29." + _pick(rng, ALNUM + "-_", 120)), [t]),
        "npm": ((t := "npm_" + _pick(rng, ALNUM, 36)), [t]),
        "pypi": ((t := "pypi-AgEIcHlwaS5vcmc" + _pick(rng, ALNUM + "-_", 70)), [t]),
        "huggingface": ((t := "hf_" + _pick(rng, string.ascii_letters, 34)), [t]),
        "sendgrid": (
            (t := "SG." + _pick(rng, ALNUM + "-_", 22) + "." + _pick(rng, ALNUM + "-_", 43)),
            [t],
        ),
        "twilio-api-key": ((t := "SK" + _pick(rng, HEX, 32)), [t]),
        "mailgun": ((t := "key-" + _pick(rng, HEX, 32)), [t]),
        "digitalocean": ((t := "dop_v1_" + _pick(rng, HEX, 64)), [t]),
        "shopify": ((t := "shpat_" + _pick(rng, HEX, 32)), [t]),
        "databricks": ((t := "dapi" + _pick(rng, HEX, 32)), [t]),
        "vault": ((t := "hvs." + _pick(rng, ALNUM + "-_", 90)), [t]),
        "doppler": ((t := "dp.pt." + _pick(rng, ALNUM, 43)), [t]),
        "linear": ((t := "lin_api_" + _pick(rng, ALNUM, 40)), [t]),
        "telegram-bot": (
            (t := f"{rng.randrange(10**8, 10**9)}:AA{_pick(rng, ALNUM + '-_', 33)}"),
            [t.split(":")[1]],
        ),
        "jwt": ((t := _jwt(rng)), [t.split(".", 1)[1]]),
        "private-key-pem": (pem, pem_lines),
        "postgres-url": (f"postgres://{user}:{pw}@db.internal:5432/shop", [pw]),
        "curl-basic": (f'curl -u "{user}:{pw}" https://ci.acme.io/api/builds', [pw]),
        "azure-storage": (
            (
                f"DefaultEndpointsProtocol=https;AccountName=acme{_pick(rng, string.ascii_lowercase, 6)};"
                f"AccountKey={(k := _pick(rng, B64, 86) + '==')};EndpointSuffix=core.windows.net"
            ),
            [k],
        ),
        "k8s-secret": (
            f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  db-password: {k8s}\n",
            [k8s],
        ),
        "prose-password": (f"the staging db password is {pw}", [pw]),
        "prose-login": (f"the login is {user} / {pw}", [pw]),
        "bearer-header": ((f"Authorization: Bearer {(b := _pick(rng, ALNUM, 48))}"), [b]),
        # the shapes issue 14 measured as misses
        "aws-secret-slash": ((f"AWS_SECRET_ACCESS_KEY={(k := '/' + _pick(rng, B64, 39))}"), [k]),
        "prose-use-password": (f"use the password {pw} for the staging db", [pw]),
        "slack-legacy": (
            (
                t := f"xoxo-{rng.randrange(10**9, 10**10)}-{rng.randrange(10**9, 10**10)}-"
                f"{rng.randrange(10**9, 10**10)}-{_pick(rng, HEX, 12)}"
            ),
            [t],
        ),
        "prose-login-colon": (f"login: {user} / {pw}", [pw]),
    }
    return out


CONTEXTS = (
    "Remember: for deploys always use this, {cred} — and never commit it.",
    "here is my .env, the app must always read it at start:\nAPP_ENV=staging\n{cred}\nLOG_LEVEL=info",
    "We always call the API like this (log from yesterday):\n2026-03-14T09:31:07Z INFO client auth ok using {cred}",
    "The build failed; tool output was:\n```\n$ ./deploy.sh\nusing credentials {cred}\nerror: 403\n```\n"
    "From now on we always deploy with these credentials.",
    "{cred}",  # pasted on its own, nothing around it
)


def planted(count: int, seed: int = 14) -> list[tuple[str, str, str, list[str]]]:
    """`count` credentials, every shape in turn: (shape, context, text, secret parts)."""
    rng, out = random.Random(seed), []
    while len(out) < count:
        for shape, (cred, secrets) in shapes(rng).items():
            context = CONTEXTS[len(out) % len(CONTEXTS)]
            out.append((shape, context[:24], context.format(cred=cred), secrets))
            if len(out) == count:
                break
    return out


def claude_transcript(
    texts: list[str], cwd: str, session: str = "5eed0000-0000-4000-8000-000000000014"
) -> str:
    """A Claude Code session file (type/message/uuid/parentUuid/cwd/timestamp as the host writes
    them): each text a user prompt, each followed by a short assistant reply."""
    lines, parent = [], None
    for index, text in enumerate(texts):
        for role, content in (("user", text), ("assistant", [{"type": "text", "text": "Noted."}])):
            uuid = f"00000000-0000-4000-8000-{len(lines):012d}"
            lines.append(
                json.dumps(
                    {
                        "parentUuid": parent,
                        "isSidechain": False,
                        "userType": "external",
                        "cwd": cwd,
                        "sessionId": session,
                        "version": "2.1.42",
                        "gitBranch": "main",
                        "type": role,
                        "message": {"role": role, "content": content}
                        if role == "user"
                        else {
                            "id": f"msg_{index:08d}",
                            "type": "message",
                            "role": role,
                            "model": "claude-sonnet-4-5",
                            "content": content,
                        },
                        "timestamp": f"2026-03-14T09:{30 + index // 60:02d}:{index % 60:02d}.000Z",
                        "uuid": uuid,
                    }
                )
            )
            parent = uuid
    return "\n".join(lines) + "\n"


def bench_figures(count: int = 410) -> dict[str, object]:
    """Every planted credential through redact(): how many secret parts survive, per shape."""
    from memvet.store.redaction import redact

    rows = planted(count)
    leaked_by_shape: dict[str, int] = {}
    for shape, _context, text, secrets in rows:
        result = redact(text).text
        leaked = sum(secret in result for secret in secrets)
        leaked_by_shape[shape] = leaked_by_shape.get(shape, 0) + leaked
    return {
        "credentials": len(rows),
        "shapes": len({r[0] for r in rows}),
        "contexts": len(CONTEXTS),
        "leaked": sum(leaked_by_shape.values()),
        "leaked_by_shape": {k: v for k, v in sorted(leaked_by_shape.items()) if v},
        "note": "redact() on each planted text; the end-to-end run over every read surface is "
        "tests/store/test_planted_credentials.py",
    }
