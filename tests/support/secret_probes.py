"""Issue 14: a labelled probe set written from the redaction policy (docs/threat-model.md, "What
counts as a secret"), not from the third-party corpus: per class of NOT secret, text the
redactor must leave unchanged; per class of secret the corpus under-represents, text whose
credential must be masked. Written before measuring the redactor on it.

`probes()` returns (policy label, class, text, secret): `secret` is the credential that must not
survive (None for not-secret rows). Values are derived here (hashes of fixed words, seeded
random tokens), none is a real credential or a corpus row. Built on call, nothing at import.
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import uuid
from typing import NamedTuple

NOT_SECRET = "not_secret"
SECRET = "secret"


class Probe(NamedTuple):
    label: str
    family: str
    text: str
    secret: str | None


def _token(seed: int, length: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    rng = random.Random(seed)
    while True:  # generated material mixes all three classes, as real keys do
        value = "".join(rng.choice(alphabet) for _ in range(length))
        if alphabet != string.ascii_letters + string.digits or (
            any(c.islower() for c in value)
            and any(c.isupper() for c in value)
            and any(c.isdigit() for c in value)
        ):
            return value


def _hex(word: str, algo: str = "sha256") -> str:
    return hashlib.new(algo, word.encode()).hexdigest()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _not_secrets() -> list[tuple[str, str]]:
    sha1, sha256, md5 = _hex("release", "sha1"), _hex("release"), _hex("release", "md5")
    digest = _hex("nginx-image")
    sha512 = _b64(hashlib.sha512(b"left-pad").digest())
    uid, uid4 = str(uuid.uuid5(uuid.NAMESPACE_DNS, "memvet")), str(uuid.UUID(_hex("u")[:32]))
    prose_b64 = _b64(b"The quick brown fox jumps over the lazy dog, twice a day.")
    json_b64 = _b64(b'{"user": "alice", "role": "viewer", "page": 2, "sort": "desc"}')
    ed25519 = "AAAAC3NzaC1lZDI1NTE5AAAAI" + _token(3, 43)
    rsa_pub = "AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + _token(4, 180)
    pem_body = "\n".join(
        _token(5 + i, 64, string.ascii_letters + string.digits + "+/") for i in range(3)
    )
    return [
        ("commit-sha", f"fixed in commit {sha1}, see the PR"),
        ("commit-sha", f"git revert {sha1[:12]} && git cherry-pick {_hex('x', 'sha1')}"),
        ("commit-sha", f"Merge: {sha1[:7]} {_hex('y', 'sha1')[:7]}\ncommit {sha1}"),
        ("sha256-digest", f"{sha256}  memvet-1.4.0.tar.gz"),
        ("sha256-digest", f"expected checksum sha256:{sha256} but got sha256:{_hex('other')}"),
        ("md5-digest", f"md5sum says {md5} for the backup file"),
        ("md5-digest", f'ETag: "{md5}"'),
        ("docker-digest", f"image: nginx@sha256:{digest}"),
        ("docker-digest", f"docker pull ghcr.io/acme/api@sha256:{digest}"),
        ("docker-digest", f"Digest: sha256:{digest}\nStatus: Downloaded newer image"),
        ("integrity-hash", f'"integrity": "sha512-{sha512}"'),
        ("integrity-hash", f"left-pad@1.3.0:\n  integrity sha512-{sha512}"),
        ("integrity-hash", f"requests==2.31.0 --hash=sha256:{sha256}"),
        (
            "integrity-hash",
            f'<script src="app.js" integrity="sha384-{_b64(hashlib.sha384(b"a").digest())}">',
        ),
        ("uuid", f"request id {uid} failed with 502"),
        ("uuid", f"the tenant is {uid4.upper()} in the admin console"),
        ("ulid", "event 01HZX3NDEKTSV4RRFFQ69G5FAV was replayed"),
        ("base64-data", f"echo {prose_b64} | base64 -d"),
        ("base64-data", f"the cursor is {json_b64}"),
        ("public-key", f"ssh-ed25519 {ed25519} alice@laptop"),
        ("public-key", f"add this to authorized_keys: ssh-rsa {rsa_pub} deploy@ci"),
        ("public-key", f"-----BEGIN PUBLIC KEY-----\n{pem_body}\n-----END PUBLIC KEY-----"),
        ("arn", "arn:aws:iam::123456789012:role/deploy-role-7f3k9q"),
        ("arn", "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-password-AbCdEf"),
        ("bucket-account", "artifacts go to s3://acme-prod-artifacts-7f3k9q2m/builds/"),
        (
            "bucket-account",
            "the AWS account id is 123456789012 and the project is acme-prod-381204",
        ),
        (
            "oauth-client-id",
            "client_id=1234567890-abc123def456ghi789jkl012mno345pq.apps.googleusercontent.com",
        ),
        ("oauth-client-id", "GITHUB_CLIENT_ID=Iv1.8a61f9b3a7aba766"),
        ("username", "log in as deploy-bot on the bastion, then sudo -u postgres psql"),
        ("email", "mail alice.smith+ci@example.com or ops-team@acme.io about it"),
        ("url", "see https://github.com/acme/memvet/pull/1234#issuecomment-987654321"),
        ("url", "GET https://api.example.com/v1/users?page=2&sort=desc&per_page=50"),
        ("url", "DATABASE_URL=postgres://db.internal:5432/app?sslmode=require"),
        ("path", "/var/lib/docker/overlay2/" + _hex("layer") + "/diff/etc"),
        ("path", "/private/var/folders/xz/7k2m9q3n1v5b8c4d6f0g2h4j0000gn/T/tmpa1b2c3d4"),
        (
            "path",
            "~/.cache/pip/wheels/3f/2a/" + _hex("wheel")[:40] + "/requests-2.31.0-py3-none-any.whl",
        ),
        ("path", "node_modules/.pnpm/lodash@4.17.21/node_modules/lodash/lodash.js"),
        ("version", "upgrade to v2.14.3-rc.1+build.20240511 and go1.21.5"),
        ("version", "pinned to 3.12.0b4 and node 20.11.1, libssl 3.0.13-0ubuntu3.1"),
        ("build-id", "BuildId: " + _hex("build", "sha1")),
        ("build-id", "CI run 9876543210 (build 20240511.3) passed"),
        ("placeholder", "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE"),
        ("placeholder", "api_key: xxxxxxxxxxxxxxxxxxxxxxxx"),
        ("placeholder", "curl -H 'Authorization: Bearer <token>' https://api.example.com"),
        ("placeholder", "export OPENAI_API_KEY=your-api-key"),
        ("placeholder", "password=${DB_PASSWORD}"),
        ("placeholder", "GITHUB_TOKEN=$(gh auth token)"),
        ("placeholder", "export NPM_TOKEN=$(cat ~/.npm-token)"),
        ("placeholder", "token: {{ secrets.DEPLOY_TOKEN }}"),
        ("git-ref", "pushed refs/heads/feature/add-login-7f3a9c to origin"),
        ("git-ref", "origin/dependabot/npm_and_yarn/lodash-4.17.21 and refs/pull/1234/head"),
        ("k8s-name", "pod api-server-7d9f8b6c5d-x2k9q is CrashLoopBackOff"),
        ("k8s-name", "kubectl describe replicaset web-5c7f9d8b6 -n prod"),
        ("css-colour", "color: #1a2b3c; background: #ffcc00; border-color: #0f0"),
        ("test-data", "assert add(2, 3) == 5 and fixture user_id=42 name='alice'"),
        ("test-data", "Lorem ipsum dolor sit amet, consectetur adipiscing elit."),
        ("hash-named", f'key_sha256 = "{sha256}"'),
        ("hash-named", f"token_md5: {md5}"),
        ("hash-named", f"cache-key: node-modules-{sha256[:40]}"),
        (
            "hash-named",
            f"the API key fingerprint is SHA256:{_b64(hashlib.sha256(b'fp').digest()).rstrip('=')}",
        ),
        ("id-named", f'key_id = "{uid}"'),
        ("id-named", f"Idempotency-Key: {uid4}"),
        ("id-named", f"token_id={uid} was revoked yesterday"),
        ("id-named", "KeyId: mrk-" + _hex("mrk")[:32]),
        ("gha-cache-key", "key: ${{ runner.os }}-pip-${{ hashFiles('**/requirements.txt') }}"),
        ("about-secrets", "the password manager is KeePassXC; rotate the token every 90 days"),
    ]


def _secrets() -> list[tuple[str, str, str]]:
    body = _token(11, 36)
    pw = "Tq7!vLm2#Rz9"
    pem = "\n".join(
        _token(20 + i, 64, string.ascii_letters + string.digits + "+/") for i in range(4)
    )
    return [
        ("provider-prefix", f"GITLAB_TOKEN=glpat-{_token(12, 20)}", f"glpat-{_token(12, 20)}"),
        ("provider-prefix", f"use hf_{_token(13, 34)} for the model hub", f"hf_{_token(13, 34)}"),
        ("provider-prefix", f"linear key lin_api_{_token(14, 40)}", f"lin_api_{_token(14, 40)}"),
        ("provider-prefix", f"pscale_tkn_{_token(15, 43)}", f"pscale_tkn_{_token(15, 43)}"),
        ("provider-prefix", f"DIGITALOCEAN_TOKEN=dop_v1_{_hex('do')}", f"dop_v1_{_hex('do')}"),
        ("provider-prefix", f"anthropic: sk-ant-api03-{_token(16, 93)}AA", _token(16, 93)),
        ("provider-prefix", f"npm_{_token(17, 36)}", f"npm_{_token(17, 36)}"),
        ("prose", f"my github password is {pw}", pw),
        ("prose", f"the staging db pw: {pw}", pw),
        ("prose", "the token for the staging api is Kx9mQ2vLp7Zr", "Kx9mQ2vLp7Zr"),
        ("prose", f"login is deploy / {pw}", pw),
        ("prose", f"use the password {pw} for the staging db", pw),
        ("url-userpass", f"postgres://app:{pw}@db.internal:5432/app", pw),
        ("url-userpass", "redis://:p4ssw0rdXyz9@cache:6379/0", "p4ssw0rdXyz9"),
        ("url-userpass", f'curl -u "deploy:{pw}" https://ci.example.com', pw),
        (
            "env-dump",
            f"DB_HOST=db\nDB_USER=app\nDB_PASSWORD={pw}\nSESSION_SECRET={body}\nPORT=8080",
            body,
        ),
        ("env-dump", f"DB_HOST=db\nDB_USER=app\nDB_PASSWORD={pw}\nPORT=8080", pw),
        (
            "split-pem",
            f"-----BEGIN OPENSSH PRIVATE KEY-----\n{pem}\n(rest of the key in the next message)",
            pem.splitlines()[1],
        ),
        (
            "split-pem",
            "> -----BEGIN RSA PRIVATE KEY-----\n> " + "\n> ".join(pem.splitlines()),
            pem.splitlines()[2],
        ),
        ("bare-random", f"here it is: {body}", body),
    ]


def probes() -> list[Probe]:
    return [Probe(NOT_SECRET, family, text, None) for family, text in _not_secrets()] + [
        Probe(SECRET, family, text, secret) for family, text, secret in _secrets()
    ]
