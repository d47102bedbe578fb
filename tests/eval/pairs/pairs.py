"""Labelled pairs of memories of one scope for the conflict-detection benchmark
(tests/bench/bench_conflicts.py): "rival" (both cannot be current: a negation, another number
or version, another or renamed tool, another path, yes against no) or "compatible" (both hold:
one value said twice, two environments, two tasks, a rule and the fact it limits, a tool and
how to run it). Written from a reviewer's side, not from the detector's rules; some compatible
pairs are hard on purpose (two halves of a monorepo, two file types, CI against local).

Each entry: (category, label, (statement, kind, polarity), (statement, kind, polarity)).
The split was drawn once by a keyed hash of the pair's index and text and is frozen in
split.json (test_pairs.py fails when a test pair changes).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

SPLIT_FILE = Path(__file__).resolve().parent / "split.json"
SPLIT_KEY = "memvet-conflict-pairs-v1"
F, P, C, D = "fact", "procedure", "constraint", "decision"
A, N = "assert", "deny"

PAIRS = (
    # ---- rival: negations -------------------------------------------------------------------
    (
        "negation",
        "rival",
        ("We use Docker for local development", F, A),
        ("This project does not use Docker", F, N),
    ),
    (
        "negation",
        "rival",
        ("The public API uses GraphQL", D, A),
        ("The public API does not use GraphQL; it is REST only", D, A),
    ),
    (
        "negation",
        "rival",
        ("Commit the lockfile with every dependency change", P, A),
        ("Don't commit the lockfile", C, A),
    ),
    (
        "negation",
        "rival",
        ("Integration tests run against a real Postgres database", F, A),
        ("Integration tests never use a real Postgres database", C, A),
    ),
    (
        "negation",
        "rival",
        ("Use tabs for indentation", D, A),
        ("Don't use tabs for indentation", C, A),
    ),
    (
        "negation",
        "rival",
        ("Feature flags are required for every new endpoint", C, A),
        ("Feature flags are not required for new endpoints", C, A),
    ),
    (
        "negation",
        "rival",
        ("The main branch is protected", F, A),
        ("The main branch is not protected", F, A),
    ),
    (
        "negation",
        "rival",
        ("Commit messages follow Conventional Commits", D, A),
        ("Commit messages don't follow Conventional Commits", D, A),
    ),
    ("negation", "rival", ("We deploy on Fridays", F, A), ("We never deploy on Fridays", C, A)),
    (
        "negation",
        "rival",
        ("The app uses Redux for state", D, A),
        ("The app no longer uses Redux for state", D, A),
    ),
    # ---- rival: numbers ---------------------------------------------------------------------
    (
        "number",
        "rival",
        ("Staging postgres listens on port 5432", F, A),
        ("Staging postgres listens on port 5433, not the default 5432", F, A),
    ),
    (
        "number",
        "rival",
        ("The API rate limit is 100 requests per minute", F, A),
        ("The API rate limit is 250 requests per minute", F, A),
    ),
    ("number", "rival", ("Maximum line length is 88", D, A), ("Maximum line length is 120", D, A)),
    ("number", "rival", ("Redis listens on port 6379", F, A), ("Redis listens on port 6380", F, A)),
    (
        "number",
        "rival",
        ("The request timeout is 30 seconds", F, A),
        ("The request timeout is 10 seconds", F, A),
    ),
    (
        "number",
        "rival",
        ("The worker pool runs 8 workers", F, A),
        ("The worker pool runs 16 workers", F, A),
    ),
    (
        "number",
        "rival",
        ("The coverage threshold is 80 percent", C, A),
        ("The coverage threshold is 90 percent", C, A),
    ),
    ("number", "rival", ("Logs are kept for 30 days", F, A), ("Logs are kept for 90 days", F, A)),
    (
        "number",
        "rival",
        ("The API server listens on port 8000", F, A),
        ("The API server listens on port 8080", F, A),
    ),
    # ---- rival: versions --------------------------------------------------------------------
    ("version", "rival", ("We target Python 3.11", D, A), ("We target Python 3.12", D, A)),
    ("version", "rival", ("The runtime is Node 18", F, A), ("The runtime is Node 20", F, A)),
    (
        "version",
        "rival",
        ("Terraform is pinned to 1.7.5", C, A),
        ("Terraform is pinned to 1.9.2", C, A),
    ),
    (
        "version",
        "rival",
        ("The minimum supported Rust version is 1.70", C, A),
        ("The minimum supported Rust version is 1.74", C, A),
    ),
    (
        "version",
        "rival",
        ("Production runs Postgres 14", F, A),
        ("Production runs Postgres 16", F, A),
    ),
    (
        "version",
        "rival",
        ("payments is built with Go 1.21", F, A),
        ("payments is built with Go 1.22", F, A),
    ),
    ("version", "rival", ("Builds use Java 17", F, A), ("Builds use Java 21", F, A)),
    # ---- rival: other or renamed tools ------------------------------------------------------
    (
        "tool",
        "rival",
        ("We use yarn to install dependencies", F, A),
        ("We use pnpm to install dependencies", F, A),
    ),
    (
        "tool",
        "rival",
        ("Dependencies are managed with poetry", F, A),
        ("Dependencies are managed with uv", F, A),
    ),
    ("tool", "rival", ("Lint Python with flake8", D, A), ("Lint Python with ruff", D, A)),
    ("tool", "rival", ("Unit tests use jest", F, A), ("Unit tests use vitest", F, A)),
    ("tool", "rival", ("CI runs on CircleCI", F, A), ("CI runs on GitHub Actions", F, A)),
    ("tool", "rival", ("The warehouse is Redshift", F, A), ("The warehouse is Snowflake", F, A)),
    (
        "tool",
        "rival",
        ("Push notifications go through OneSignal", F, A),
        ("Push notifications go through Firebase Cloud Messaging", F, A),
    ),
    (
        "tool",
        "rival",
        ("The docs are hosted on GitHub Pages", F, A),
        ("The docs are hosted on Netlify", F, A),
    ),
    (
        "tool",
        "rival",
        ("Container images are built with docker", F, A),
        ("Container images are built with podman", F, A),
    ),
    ("tool", "rival", ("The database is MySQL", F, A), ("The database is PostgreSQL", F, A)),
    ("tool", "rival", ("We deploy with Capistrano", P, A), ("We deploy with Argo CD", P, A)),
    (
        "tool",
        "rival",
        ("Format the TypeScript code with prettier", D, A),
        ("Format the TypeScript code with biome", D, A),
    ),
    # ---- rival: paths and yes/no ------------------------------------------------------------
    (
        "path",
        "rival",
        ("The app config lives in config/settings.toml", F, A),
        ("The app config lives in etc/app.yaml", F, A),
    ),
    (
        "path",
        "rival",
        ("Database migrations are in db/migrations", F, A),
        ("Database migrations are in src/migrations", F, A),
    ),
    # ---- compatible -------------------------------------------------------------------------
    ("same_value", "compatible", ("We use pnpm", F, A), ("Run pnpm install after pulling", P, A)),
    (
        "same_value",
        "compatible",
        ("Dependencies are managed with uv", F, A),
        ("uv sync installs the dependencies", P, A),
    ),
    (
        "same_value",
        "compatible",
        ("Staging postgres listens on port 5433", F, A),
        ("The staging postgres port is 5433, not the default", F, A),
    ),
    (
        "same_value",
        "compatible",
        ("The runtime is Node 20, pinned in .nvmrc", F, A),
        ("The runtime is Node 20", F, A),
    ),
    (
        "same_value",
        "compatible",
        ("We use ruff for linting", D, A),
        ("Run ruff check before pushing", P, A),
    ),
    (
        "same_value",
        "compatible",
        ("Use black with line length 88", D, A),
        ("Maximum line length is 88", D, A),
    ),
    (
        "same_value",
        "compatible",
        ("The Redis cache is at cache.internal:6380", F, A),
        ("Redis listens on port 6380", F, A),
    ),
    (
        "environments",
        "compatible",
        ("Staging postgres listens on port 5433", F, A),
        ("Production postgres listens on port 5432", F, A),
    ),
    (
        "environments",
        "compatible",
        ("Staging deploys automatically on merge", F, A),
        ("Production deploys need a manual approval", C, A),
    ),
    (
        "environments",
        "compatible",
        ("Docker is used for local development", F, A),
        ("Production runs on Kubernetes", F, A),
    ),
    (
        "environments",
        "compatible",
        ("We don't use Docker in CI", C, A),
        ("Docker is used for local development", F, A),
    ),
    (
        "two_parts",
        "compatible",
        ("The frontend's unit tests use vitest", F, A),
        ("The backend's unit tests use pytest", F, A),
    ),
    (
        "two_parts",
        "compatible",
        ("Format Python code with black", D, A),
        ("Format TypeScript code with prettier", D, A),
    ),
    (
        "two_parts",
        "compatible",
        ("Indent Go files with tabs", D, A),
        ("Indent YAML files with 2 spaces", D, A),
    ),
    (
        "two_parts",
        "compatible",
        ("The legacy frontend uses yarn", F, A),
        ("The new frontend uses pnpm", F, A),
    ),
    (
        "two_parts",
        "compatible",
        ("The public API uses REST", D, A),
        ("Internal services talk to each other over gRPC", D, A),
    ),
    (
        "two_parts",
        "compatible",
        ("iOS builds use Xcode 15", F, A),
        ("Android builds use Gradle 8", F, A),
    ),
    (
        "two_tasks",
        "compatible",
        ("Run migrations with alembic upgrade head", P, A),
        ("Create a migration with alembic revision --autogenerate", P, A),
    ),
    (
        "two_tasks",
        "compatible",
        ("Run the unit tests with pytest -x", P, A),
        ("Integration tests need docker compose up -d first", P, A),
    ),
    (
        "two_tasks",
        "compatible",
        ("To release on iOS run fastlane ios beta", P, A),
        ("To release on Android run fastlane android internal", P, A),
    ),
    (
        "related",
        "compatible",
        ("Never push directly to main", C, A),
        ("Open a pull request for every change", P, A),
    ),
    (
        "related",
        "compatible",
        ("Terraform is pinned to 1.9.2", C, A),
        ("Terraform state is in the S3 bucket acme-tfstate", F, A),
    ),
    (
        "related",
        "compatible",
        ("The API rate limit is 100 requests per minute", F, A),
        ("The API returns 429 when a client exceeds the rate limit", F, A),
    ),
    (
        "related",
        "compatible",
        ("Deploys go through Argo CD", P, A),
        ("Merging to main triggers the deploy", F, A),
    ),
    (
        "related",
        "compatible",
        ("Logs are kept for 30 days", F, A),
        ("Logs are shipped to Loki", F, A),
    ),
    (
        "related",
        "compatible",
        ("Commit messages follow Conventional Commits", D, A),
        ("Keep commits small", D, A),
    ),
    (
        "related",
        "compatible",
        ("The warehouse is Snowflake", F, A),
        ("dbt development runs in the DEV_DANA schema", F, A),
    ),
    (
        "related",
        "compatible",
        ("Never log card numbers", C, A),
        ("Log the masked_pan field instead of card numbers", P, A),
    ),
    (
        "related",
        "compatible",
        ("CI runs on GitHub Actions", F, A),
        ("CI must pass before merging", C, A),
    ),
    (
        "related",
        "compatible",
        ("The minimum supported Rust version is 1.74", C, A),
        ("Release builds use the stable toolchain", F, A),
    ),
    (
        "related",
        "compatible",
        ("The app config lives in config/settings.toml", F, A),
        ("Environment variables override the app config", F, A),
    ),
    ("related", "compatible", ("Builds use Java 21", F, A), ("Gradle builds the project", F, A)),
    (
        "related",
        "compatible",
        ("The app keeps state in Zustand", D, A),
        ("New screens use expo-router for navigation", D, A),
    ),
    (
        "related",
        "compatible",
        ("Feature flags live in the flags table", F, A),
        ("Feature flags are required for every new endpoint", C, A),
    ),
    (
        "related",
        "compatible",
        ("The coverage threshold is 80 percent", C, A),
        ("Coverage is reported to Codecov", F, A),
    ),
    ("related", "compatible", ("Prefer small pull requests", D, A), ("Prefer squash merges", D, A)),
    (
        "related",
        "compatible",
        ("Deploy on weekdays only", C, A),
        ("Deploys go through Argo CD", P, A),
    ),
    (
        "related",
        "compatible",
        ("Errors are reported to Sentry", F, A),
        ("Metrics go to Datadog", F, A),
    ),
    (
        "related",
        "compatible",
        ("Secrets are kept in 1Password", F, A),
        ("Never commit .env files", C, A),
    ),
    (
        "related",
        "compatible",
        ("We use Docker for local development", F, A),
        ("The Docker image is built from the Dockerfile in deploy/", F, A),
    ),
)


def pair_id(index: int) -> str:
    return f"p{index:03d}"


def draw_split() -> dict[str, str]:
    out = {}
    for i, pair in enumerate(PAIRS):
        digest = hashlib.sha256(f"{SPLIT_KEY}:{i}:{json.dumps(pair)}".encode()).digest()
        out[pair_id(i)] = "test" if digest[0] % 2 else "dev"
    return out


def fingerprint(test_ids: list[str]) -> str:
    chosen = [[pid, PAIRS[int(pid[1:])]] for pid in sorted(test_ids)]
    return hashlib.sha256(json.dumps(chosen).encode()).hexdigest()


def freeze() -> None:  # once, by hand: python tests/eval/pairs/pairs.py --freeze
    test = sorted(p for p, part in draw_split().items() if part == "test")
    SPLIT_FILE.write_text(
        json.dumps({"key": SPLIT_KEY, "test": test, "sha256": fingerprint(test)}, indent=1) + "\n"
    )


if __name__ == "__main__":
    import sys

    if "--freeze" in sys.argv:
        freeze()
    print(len(PAIRS), "pairs;", sum(p == "test" for p in draw_split().values()), "in test")
