"""The user-side evaluation's story: one developer (dana), eight repositories, both hosts,
January to June 2026. Written from the user's side before any of it was run against memvet:
what she typed, what a careful reviewer approves, rejects, retires or disputes later.

Each user turn lists the memories a reviewer would approve from it (the gold statement is what
the reviewer edits the candidate into); `review` says otherwise ("reject": a temporary or
hypothetical remark the reviewer turns down; "leave": never reviewed). `supersedes` is the
reviewer's choice at approval: the memories the new one replaces. Actions after the default
approval (25 minutes after the session's last turn) are in LATER_ACTIONS.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class M:
    id: str
    kind: str
    statement: str
    polarity: str = "assert"
    glob: bool = False
    supersedes: tuple[str, ...] = ()
    review: str = "approve"  # approve | reject | leave


@dataclass(frozen=True)
class U:
    text: str
    memories: tuple[M, ...] = ()

    def __init__(self, text: str, *memories: M) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "memories", memories)


@dataclass(frozen=True)
class A:
    text: str
    tool: dict | None = None


@dataclass(frozen=True)
class S:
    host: str
    repo: str
    start: str
    turns: tuple
    sub: str = ""  # a subfolder of the repo the session runs in
    options: dict = field(default_factory=dict)


HOME = "/home/dana/src"
REPOS = (
    "shop-api",
    "infra",
    "data-pipelines",
    "mobile-app",
    "docs-site",
    "cli-tool",
    "payments",
    "payments-legacy",
)
CC, CX = "claude-code", "codex"


def sh(cmd: str, out: str) -> dict:
    return {"kind": "shell", "input": cmd, "output": out}


SESSIONS: tuple[S, ...] = (
    # ---- January ---------------------------------------------------------------------------
    S(
        CC,
        "shop-api",
        "2026-01-05T09:00:00Z",
        (
            U(
                "hey, quick setup note: we use yarn in this repo, run yarn install after you pull",
                M("shop_yarn", "fact", "shop-api uses yarn; run `yarn install` after pulling."),
            ),
            A("Got it, I'll use yarn.", sh("yarn install", "success Already up-to-date.")),
            U(
                "and run the tests with yarn test --runInBand, the parallel run flakes because all the "
                "workers share one test database",
                M(
                    "shop_tests_yarn",
                    "procedure",
                    "Run shop-api's tests serially with `yarn test "
                    "--runInBand`; parallel workers share one test database and flake.",
                ),
            ),
            A("Understood."),
        ),
    ),
    S(
        CX,
        "infra",
        "2026-01-06T14:00:00Z",
        (
            U(
                "context for this repo: terraform apply only ever runs through atlantis from a PR "
                "comment. never from a local machine, not even for a quick fix",
                M(
                    "infra_apply",
                    "constraint",
                    "terraform apply runs only through Atlantis from a PR "
                    "comment, never from a local machine.",
                ),
            ),
            A("Understood — I'll only run terraform plan locally."),
            U(
                "we're on terraform 1.7.5, the vpc modules break on 1.8 so dont bump it",
                M(
                    "infra_tf175",
                    "constraint",
                    "infra pins Terraform 1.7.5; the VPC modules break on 1.8.",
                ),
            ),
            A("Noted, I'll keep required_version at 1.7.5."),
        ),
    ),
    S(
        CC,
        "mobile-app",
        "2026-01-08T10:30:00Z",
        (
            U(
                "for the mobile app we use redux toolkit for state, please keep new screens on it",
                M("mob_redux", "decision", "mobile-app keeps app state in Redux Toolkit."),
            ),
            A("Sure, new screens will use Redux Toolkit slices."),
            U(
                "builds go through EAS, `eas build`. never use the old expo build command, it's gone",
                M(
                    "mob_eas",
                    "constraint",
                    "mobile-app builds go through EAS (`eas build`), never the old `expo build`.",
                ),
            ),
            A("Okay."),
        ),
    ),
    S(
        CX,
        "data-pipelines",
        "2026-01-12T08:15:00Z",
        (
            U(
                "the warehouse is redshift, cluster analytics-prod. dbt profiles point there",
                M(
                    "data_redshift",
                    "fact",
                    "data-pipelines' warehouse is Redshift (cluster "
                    "analytics-prod); the dbt profiles point there.",
                ),
            ),
            A("Thanks, I see the profile in profiles.yml."),
            U(
                "every airflow DAG has to set catchup=False, we got burned by backfills before",
                M(
                    "data_catchup",
                    "constraint",
                    "Every Airflow DAG in data-pipelines must set catchup=False.",
                ),
            ),
            A("Will do."),
        ),
    ),
    S(
        CC,
        "cli-tool",
        "2026-01-14T16:00:00Z",
        (
            U(
                "msrv for the cli is rust 1.70, don't use anything newer than that",
                M(
                    "cli_msrv170",
                    "constraint",
                    "cli-tool's minimum supported Rust version is 1.70.",
                ),
            ),
            A("I'll avoid let-else chains and newer std APIs."),
            U(
                "before pushing always run cargo clippy -- -D warnings, CI fails on any warning",
                M(
                    "cli_clippy",
                    "procedure",
                    "Before pushing cli-tool, run `cargo clippy -- -D "
                    "warnings`; CI fails on any warning.",
                ),
            ),
            A(
                "Okay.",
                sh("cargo clippy -- -D warnings", "    Finished dev [unoptimized] target(s)"),
            ),
        ),
    ),
    S(
        CX,
        "payments",
        "2026-01-19T11:00:00Z",
        (
            U(
                "payments is go 1.21 for now and we use sqlc for all database access, no ORMs",
                M("pay_go121", "fact", "payments is built with Go 1.21."),
                M("pay_sqlc", "decision", "payments uses sqlc for all database access; no ORMs."),
            ),
            A("Understood."),
            U(
                "NEVER log card numbers, not even partially. use the masked_pan field if you need "
                "something in a log line",
                M(
                    "pay_pan",
                    "constraint",
                    "Never log card numbers in payments, not even partially; "
                    "log the masked_pan field instead.",
                ),
            ),
            A("Got it."),
        ),
    ),
    S(
        CC,
        "docs-site",
        "2026-01-21T13:00:00Z",
        (
            U(
                "docs site is mkdocs material. `mkdocs serve` gives you a local preview on :8000",
                M(
                    "docs_mkdocs",
                    "fact",
                    "docs-site is built with MkDocs Material; `mkdocs serve` "
                    "previews it locally on port 8000.",
                ),
            ),
            A("Thanks."),
            U(
                "it gets published to github pages by the publish workflow when something merges",
                M(
                    "docs_pages",
                    "fact",
                    "docs-site is published to GitHub Pages by the publish workflow on merge.",
                ),
            ),
            A("Okay."),
        ),
    ),
    S(
        CX,
        "payments-legacy",
        "2026-01-26T10:00:00Z",
        (
            U(
                "this is the old php 7.4 payments app. it deploys with capistrano, cap production "
                "deploy, from the bastion",
                M(
                    "leg_cap",
                    "procedure",
                    "payments-legacy (PHP 7.4) deploys with Capistrano: `cap "
                    "production deploy` from the bastion host.",
                ),
            ),
            A("Understood."),
            U(
                "it's frozen btw, only security fixes go in. no refactors",
                M(
                    "leg_frozen",
                    "constraint",
                    "payments-legacy is frozen: only security fixes, no refactors.",
                ),
            ),
            A("Noted."),
        ),
    ),
    S(
        CC,
        "shop-api",
        "2026-01-28T09:30:00Z",
        (
            U(
                "in all my projects: write commit messages in conventional commits style "
                "(feat:, fix:, chore:)",
                M(
                    "g_commits",
                    "preference",
                    "Write commit messages in Conventional Commits style (feat:, fix:, chore:).",
                    glob=True,
                ),
            ),
            A("Will do."),
            U(
                "also generally, never push straight to main. always open a PR, everywhere",
                M(
                    "g_no_main",
                    "constraint",
                    "Never push directly to main; always open a pull request.",
                    glob=True,
                ),
            ),
            A("Understood."),
            U(
                "for now skip the e2e suite when you run tests, it's broken until friday",
                M(
                    "shop_skip_e2e",
                    "procedure",
                    "Skip the e2e suite when running shop-api tests.",
                    review="reject",
                ),
            ),
            A("Okay, skipping e2e for now."),
        ),
    ),
    # ---- February --------------------------------------------------------------------------
    S(
        CX,
        "shop-api",
        "2026-02-03T10:00:00Z",
        (
            U(
                "staging postgres for shop-api listens on 5433, not the default 5432",
                M(
                    "shop_pg",
                    "fact",
                    "shop-api's staging PostgreSQL listens on port 5433, not the default 5432.",
                ),
            ),
            A("Thanks, updating the .env.staging example."),
            U(
                "never edit anything under src/generated by hand — it's regenerated from the openapi "
                "spec with yarn gen",
                M(
                    "shop_gen",
                    "constraint",
                    "Never edit files under src/generated by hand; they are "
                    "regenerated from the OpenAPI spec.",
                ),
            ),
            A("Understood."),
        ),
    ),
    S(
        CC,
        "infra",
        "2026-02-05T15:00:00Z",
        (
            U(
                "state is in the s3 bucket acme-tfstate with a dynamodb lock table called tf-locks",
                M(
                    "infra_state",
                    "fact",
                    "infra keeps Terraform state in the S3 bucket acme-tfstate, "
                    "locked with the DynamoDB table tf-locks.",
                ),
            ),
            A("Thanks."),
            U(
                "every new module needs a README generated by terraform-docs, CI checks it",
                M(
                    "infra_docs",
                    "procedure",
                    "Every new infra module needs a README generated with "
                    "terraform-docs; CI checks it.",
                ),
            ),
            A("Okay.", sh("terraform-docs markdown table modules/vpc > modules/vpc/README.md", "")),
        ),
    ),
    S(
        CX,
        "mobile-app",
        "2026-02-09T09:00:00Z",
        (
            U(
                "ios releases: `fastlane ios beta` uploads the build to testflight",
                M(
                    "mob_testflight",
                    "procedure",
                    "To release mobile-app on iOS, run `fastlane ios "
                    "beta`; it uploads the build to TestFlight.",
                ),
            ),
            A("Noted."),
            U(
                "push notifications go through onesignal",
                M(
                    "mob_onesignal",
                    "fact",
                    "mobile-app sends push notifications through OneSignal.",
                ),
            ),
            A("Thanks."),
            U(
                "minimum ios version is 15, we dropped 14 last year",
                M("mob_ios15", "fact", "mobile-app's minimum iOS version is 15."),
            ),
            A("Okay."),
        ),
    ),
    S(
        CC,
        "cli-tool",
        "2026-02-11T10:00:00Z",
        (
            U(
                "error handling convention: thiserror in the library crate, anyhow only in main.rs",
                M(
                    "cli_errors",
                    "decision",
                    "cli-tool uses thiserror for errors in the library crate "
                    "and anyhow only in main.rs.",
                ),
            ),
            A("Makes sense."),
            U(
                "rustfmt max_width is 100 here, it's in rustfmt.toml, don't reformat to 80",
                M(
                    "cli_fmt",
                    "preference",
                    "cli-tool formats with rustfmt at max_width 100 (rustfmt.toml).",
                ),
            ),
            A("Okay."),
        ),
    ),
    S(
        CX,
        "data-pipelines",
        "2026-02-16T08:00:00Z",
        (
            U(
                "don't ever run a full refresh of the orders model in prod, it takes six hours and "
                "locks the table",
                M(
                    "data_orders",
                    "constraint",
                    "Never run a full refresh of the orders dbt model in "
                    "prod; it takes six hours and locks the table.",
                ),
            ),
            A("Understood."),
            U(
                "my dev target is the DEV_DANA schema",
                M(
                    "data_dev",
                    "fact",
                    "In data-pipelines, dana's dbt dev target is the DEV_DANA schema.",
                ),
            ),
            A("Thanks."),
        ),
    ),
    S(
        CC,
        "payments",
        "2026-02-18T14:00:00Z",
        (
            U(
                "integration tests need `docker compose up -d` first, they talk to a local postgres "
                "and stripe-mock",
                M(
                    "pay_itest",
                    "procedure",
                    "Before payments' integration tests, start `docker compose "
                    "up -d` (local Postgres and stripe-mock).",
                ),
            ),
            A("Okay.", sh("docker compose up -d", "Container payments-db-1  Started")),
            U("maybe we should move to pgx directly at some point, not sure yet"),
            A("Could be worth it; I can sketch the trade-offs when you want."),
        ),
    ),
    S(
        CC,
        "shop-api",
        "2026-02-20T11:00:00Z",
        (
            U(
                "feature flags live in launchdarkly, project shop",
                M(
                    "shop_flags",
                    "fact",
                    "shop-api's feature flags live in LaunchDarkly (project shop).",
                ),
            ),
            A("Thanks."),
            U(
                "node is 20 here, pinned in .nvmrc",
                M("shop_node", "fact", "shop-api runs on Node 20, pinned in .nvmrc."),
            ),
            A("Okay."),
        ),
    ),
    # ---- March -----------------------------------------------------------------------------
    S(
        CX,
        "data-pipelines",
        "2026-03-09T09:00:00Z",
        (
            U(
                "heads up: we finished the migration, the warehouse is snowflake now. redshift is "
                "being decommissioned, don't point anything at it",
                M(
                    "data_snowflake",
                    "fact",
                    "data-pipelines' warehouse is Snowflake (moved off Redshift in March 2026).",
                    supersedes=("data_redshift",),
                ),
            ),
            A("Updating profiles.yml to the Snowflake target."),
        ),
    ),
    S(
        CC,
        "mobile-app",
        "2026-03-12T10:00:00Z",
        (
            U(
                "push notifications are sent with firebase cloud messaging",
                M(
                    "mob_fcm",
                    "fact",
                    "mobile-app sends push notifications through Firebase Cloud Messaging.",
                ),
            ),
            A("Okay, I'll use the FCM SDK."),
        ),
    ),
    S(
        CX,
        "cli-tool",
        "2026-03-16T13:00:00Z",
        (
            U(
                "we bumped the msrv to 1.74 last week, let-else is fine now",
                M(
                    "cli_msrv174",
                    "constraint",
                    "cli-tool's minimum supported Rust version is 1.74.",
                    supersedes=("cli_msrv170",),
                ),
            ),
            A("Great, I'll use let-else where it helps."),
        ),
    ),
    S(
        CC,
        "docs-site",
        "2026-03-18T09:00:00Z",
        (
            U(
                "every docs page needs a description in its front matter, the seo check fails "
                "without it",
                M(
                    "docs_desc",
                    "constraint",
                    "Every docs-site page needs a `description` in its front "
                    "matter; the SEO check fails without it.",
                ),
            ),
            A("Noted."),
        ),
    ),
    S(
        CX,
        "payments",
        "2026-03-23T10:00:00Z",
        (
            U(
                "we're on go 1.22 now, the toolchain line in go.mod says so",
                M(
                    "pay_go122",
                    "fact",
                    "payments is built with Go 1.22 (toolchain line in go.mod).",
                    supersedes=("pay_go121",),
                ),
            ),
            A("Thanks."),
        ),
    ),
    S(
        CC,
        "shop-api",
        "2026-03-25T16:00:00Z",
        (
            U(
                "actually we moved off yarn, it's pnpm now. pnpm install, pnpm test --runInBand, "
                "pnpm gen. yarn is gone from this repo",
                M(
                    "shop_pnpm",
                    "fact",
                    "shop-api uses pnpm (moved off yarn in March 2026); run "
                    "`pnpm install` after pulling.",
                    supersedes=("shop_yarn",),
                ),
                M(
                    "shop_tests_pnpm",
                    "procedure",
                    "Run shop-api's tests serially with `pnpm test "
                    "--runInBand`; parallel workers share one test database and flake.",
                    supersedes=("shop_tests_yarn",),
                ),
            ),
            A("Switching everything to pnpm.", sh("pnpm install", "Lockfile is up to date")),
        ),
    ),
    # ---- April -----------------------------------------------------------------------------
    S(
        CC,
        "mobile-app",
        "2026-04-06T09:30:00Z",
        (
            U(
                "we ripped out redux this sprint, state is zustand now. don't add new redux slices",
                M(
                    "mob_zustand",
                    "decision",
                    "mobile-app keeps app state in Zustand (Redux was "
                    "removed in April 2026); no new Redux slices.",
                    supersedes=("mob_redux",),
                ),
            ),
            A("Okay, new state goes into Zustand stores."),
        ),
    ),
    S(
        CX,
        "infra",
        "2026-04-13T11:00:00Z",
        (
            U(
                "we upgraded terraform to 1.9.2 across the board, the vpc module got fixed",
                M(
                    "infra_tf192",
                    "constraint",
                    "infra pins Terraform 1.9.2.",
                    supersedes=("infra_tf175",),
                ),
            ),
            A("Bumping required_version to 1.9.2."),
            U(
                "prod account id is 4411-2290-1187, staging is 4411-2290-5521",
                M(
                    "infra_accounts",
                    "fact",
                    "infra's AWS accounts: prod 4411-2290-1187, staging 4411-2290-5521.",
                ),
            ),
            A("Thanks."),
        ),
    ),
    S(
        CC,
        "docs-site",
        "2026-04-15T14:00:00Z",
        (
            U(
                "we moved hosting to netlify, merges to main deploy automatically. github pages is "
                "turned off",
                M(
                    "docs_netlify",
                    "fact",
                    "docs-site is hosted on Netlify; merges to main deploy "
                    "automatically (GitHub Pages is off).",
                    supersedes=("docs_pages",),
                ),
            ),
            A("Thanks, I'll remove the pages workflow reference."),
        ),
    ),
    S(
        CX,
        "payments-legacy",
        "2026-04-20T09:00:00Z",
        (
            U(
                "payments-legacy db is mysql 5.7 on legacy-db-01",
                M("leg_mysql", "fact", "payments-legacy's database is MySQL 5.7 on legacy-db-01."),
            ),
            A("Noted."),
            U("if we ever upgrade it to php 8 we'd need to redo the whole session handling"),
            A("Right, that would be a big change."),
        ),
    ),
    S(
        CC,
        "payments",
        "2026-04-22T15:00:00Z",
        (
            U(
                "payments deploys via argo cd, the app is payments-prod; merging to main syncs it",
                M(
                    "pay_argo",
                    "procedure",
                    "payments deploys through Argo CD (app payments-prod); "
                    "merging to main syncs it.",
                ),
            ),
            A("Okay."),
            U(
                "in every repo: reply to me in short bullet points, skip the long prose",
                M(
                    "g_bullets",
                    "preference",
                    "Answer in short bullet points, not long prose.",
                    glob=True,
                ),
            ),
            A("- Got it."),
        ),
    ),
    # ---- May -------------------------------------------------------------------------------
    S(
        CX,
        "shop-api",
        "2026-05-04T10:00:00Z",
        (
            U(
                "the redis cache for shop-api is at cache.internal:6380",
                M("shop_redis", "fact", "shop-api's Redis cache is at cache.internal:6380."),
            ),
            A("Thanks."),
            U(
                "api error responses follow RFC 7807 problem+json, keep it that way",
                M(
                    "shop_errors",
                    "decision",
                    "shop-api's error responses follow RFC 7807 (application/problem+json).",
                ),
            ),
            A("Understood."),
        ),
    ),
    S(
        CC,
        "cli-tool",
        "2026-05-06T10:00:00Z",
        (
            U(
                "releases: tag vX.Y.Z and cargo-dist builds the binaries in CI, don't build release "
                "binaries locally",
                M(
                    "cli_release",
                    "procedure",
                    "To release cli-tool, push a vX.Y.Z tag; cargo-dist "
                    "builds the binaries in CI (never build release binaries locally).",
                ),
            ),
            A("Okay."),
        ),
    ),
    S(
        CX,
        "data-pipelines",
        "2026-05-11T08:30:00Z",
        (
            U(
                "airflow is on MWAA now, environment data-prod, dags sync from the s3 bucket "
                "acme-dags",
                M(
                    "data_mwaa",
                    "fact",
                    "data-pipelines' Airflow runs on MWAA (environment data-prod); "
                    "DAGs sync from the S3 bucket acme-dags.",
                ),
            ),
            A("Thanks."),
        ),
    ),
    S(
        CC,
        "mobile-app",
        "2026-05-14T11:00:00Z",
        (
            U(
                "android release goes through `fastlane android internal`, it uploads to the play "
                "console internal track",
                M(
                    "mob_android",
                    "procedure",
                    "To release mobile-app on Android, run `fastlane "
                    "android internal`; it uploads to the Play Console internal track.",
                ),
            ),
            A("Noted."),
        ),
    ),
    S(
        CX,
        "docs-site",
        "2026-05-18T09:00:00Z",
        (
            U(
                "links between docs pages must be relative, absolute links break the versioned "
                "builds",
                M(
                    "docs_links",
                    "constraint",
                    "Links between docs-site pages must be relative; "
                    "absolute links break the versioned builds.",
                ),
            ),
            A("Got it."),
        ),
    ),
    S(
        CC,
        "infra",
        "2026-05-20T10:00:00Z",
        (
            U(
                "k8s manifests are kustomize, overlays per env under deploy/overlays. no helm in "
                "this repo",
                M(
                    "infra_kustomize",
                    "decision",
                    "infra's Kubernetes manifests use Kustomize with "
                    "overlays per environment under deploy/overlays; no Helm.",
                ),
            ),
            A("Okay."),
        ),
    ),
    # ---- June ------------------------------------------------------------------------------
    S(
        CX,
        "shop-api",
        "2026-06-01T10:00:00Z",
        (
            U(
                "fyi the launchdarkly thing was wrong, flags are in our own flags table now "
                "(flags service)"
            ),
            A("Thanks for the correction."),
        ),
    ),
    S(
        CC,
        "payments",
        "2026-06-03T13:00:00Z",
        (
            U(
                "the payments webhook secret rotates every 90 days, the runbook is in docs/runbooks/"
                "webhooks.md",
                M(
                    "pay_webhook",
                    "procedure",
                    "The payments webhook secret rotates every 90 days; the "
                    "runbook is docs/runbooks/webhooks.md.",
                ),
            ),
            A("Noted."),
        ),
    ),
    S(
        CX,
        "cli-tool",
        "2026-06-08T10:00:00Z",
        (
            U(
                "config file format for the cli is toml, at ~/.config/acme/cli.toml",
                M(
                    "cli_config",
                    "fact",
                    "cli-tool reads its config from TOML at ~/.config/acme/cli.toml.",
                ),
            ),
            A("Okay."),
        ),
    ),
    S(
        CC,
        "data-pipelines",
        "2026-06-10T09:00:00Z",
        (
            U(
                "sql style: lowercase keywords and trailing commas, sqlfluff enforces it in CI",
                M(
                    "data_sqlfluff",
                    "preference",
                    "data-pipelines' SQL uses lowercase keywords and "
                    "trailing commas; sqlfluff enforces it in CI.",
                ),
            ),
            A("Will follow that."),
        ),
    ),
    S(
        CX,
        "mobile-app",
        "2026-06-15T10:00:00Z",
        (
            U(
                "use expo-router for navigation in new screens, react-navigation is only in the old "
                "ones",
                M(
                    "mob_router",
                    "decision",
                    "New mobile-app screens use expo-router for navigation "
                    "(react-navigation only remains in old screens).",
                ),
            ),
            A("Okay."),
        ),
    ),
)

# Reviewer actions after the default approvals: (at, action, memory id).
LATER_ACTIONS: tuple[tuple[str, str, str], ...] = (
    # Push: OneSignal and FCM were both approved with no word of a move between them; the
    # reviewer cannot tell which is current and disputes both until someone checks.
    ("2026-03-12T11:00:00Z", "dispute", "mob_onesignal"),
    ("2026-03-12T11:01:00Z", "dispute", "mob_fcm"),
    # The LaunchDarkly memory was wrong (the user said so on June 1st).
    ("2026-06-01T10:30:00Z", "false_write", "shop_flags"),
    # The redis address changed hands; the reviewer forgets it rather than keep a wrong one.
    ("2026-06-02T09:00:00Z", "forget", "shop_redis"),
)

ASK_AT = "2026-07-01T09:00:00Z"  # current questions are asked here
