"""A small curated table of coding-agent vocabulary: words people use for one thing in
questions and in the rules they state ("can I deploy from my laptop?" against "terraform apply
runs only through Atlantis, never from a local machine"). Used by relevance.py to match a
question with a memory phrased in other words; never by the slot/conflict logic (slots.py), for
which these words are not values.

Each group is named; a text that holds any single word of a group, or every word of one of its
phrases, also holds the group's token (`≈name`, which no text can spell). Groups are general
software-project vocabulary, not any one project's names. Stemmed with text_terms' own
normalisation, passed in by the caller (one definition of a term).
"""

from __future__ import annotations

from memvet.store.lexicon import compile_word_groups

GROUPS: dict[str, tuple[str, ...]] = {
    "deploy": (
        "deploy",
        "deploys",
        "deployment",
        "release",
        "releases",
        "ship",
        "shipping",
        "publish",
        "published",
        "rollout",
        "go live",
        "goes live",
        "apply",
        "sync",
        "syncs",
    ),
    "local-machine": (
        "laptop",
        "local",
        "locally",
        "workstation",
        "desktop",
        "my machine",
        "own machine",
    ),
    "error": ("error", "errors", "failure", "failures", "exception", "exceptions", "fault"),
    "log": ("log", "logs", "logging", "logged", "print", "printed"),
    "card-data": ("card", "cards", "pan", "credit", "cardholder"),
    "database": ("db", "database", "relational", "rdbms", "postgres", "postgresql", "mysql"),
    "line-width": (
        "width",
        "max_width",
        "line width",
        "line length",
        "columns",
        "wrap",
        "long line",
    ),
    "lint": ("lint", "linter", "linting", "clippy", "warning", "warnings", "eslint", "ruff"),
    "commit-message": ("commit message", "commit messages", "commit style", "conventional commits"),
    "review": ("review", "reviewed", "pull request", "merge request", "pr", "land"),
    "app-state": ("state management", "app state", "redux", "zustand", "mobx"),
    "ios": ("ios", "iphone", "iphones", "testflight", "app store", "ipad"),
    "android": ("android", "play store", "play console", "google play"),
    "javascript-runtime": ("node", "nodejs", "javascript runtime", "nvmrc", "nvm"),
    "navigation": ("navigation", "router", "routing", "expo-router", "react-navigation"),
    # Not "push" alone: a git push is no notification.
    "push-notification": (
        "push notification",
        "push notifications",
        "notifications",
        "onesignal",
        "fcm",
        "firebase",
        "apns",
    ),
    "beta": ("beta", "betas", "tester", "testers", "testflight", "prerelease", "pre-release"),
    "iac": ("terraform", "iac", "infrastructure as code", "opentofu", "tofu"),
    "tf-state": ("tfstate", "state file", "remote backend", "backend"),
    "kubernetes": ("kubernetes", "k8s", "cluster", "manifests", "kustomize", "helm", "overlays"),
    "staging": ("staging", "pre-prod", "preprod", "stage"),
    "production": ("prod", "production"),
    "development": ("dev", "development"),
    "environment": ("env", "envs", "environment", "environments", "per-env"),
    "backfill": ("backfill", "backfills", "backfilled", "catchup", "catch-up"),
    "rebuild": ("full refresh", "full-refresh", "rebuild", "from scratch"),
    "orchestrator": (
        "airflow",
        "dag",
        "dags",
        "orchestrator",
        "mwaa",
        "workflow",
        "workflows",
        "scheduler",
        "scheduled",
        "cron",
    ),
    "sql-style": ("keywords", "reserved words", "casing", "uppercase", "lowercase", "sqlfluff"),
    "query": ("sql", "query", "queries"),
    "docs-page": ("page", "pages", "article", "articles"),
    "metadata": ("front matter", "frontmatter", "metadata", "description"),
    "link": ("link", "links", "cross-reference", "href"),
    "config": ("config", "configuration", "settings", "preferences", "dotfile", "toml"),
    "test-suite": ("test", "tests", "suite", "integration tests", "checks", "spec", "specs"),
    "binary": ("binary", "binaries", "executable", "executables", "artifacts"),
    "compile": ("build", "builds", "built", "compile", "compiled", "compiling"),
    "orm": ("orm", "orms", "gorm", "activerecord", "hibernate"),
    "refactor": (
        "refactor",
        "refactors",
        "refactoring",
        "clean up",
        "cleanup",
        "rewrite",
        "tidy",
        "restructure",
        "rework",
    ),
    "reply-style": (
        "answer",
        "answers",
        "reply",
        "replies",
        "prose",
        "verbose",
        "bullet",
        "bullets",
        "explanations",
    ),
    "rotation": ("rotate", "rotates", "rotation", "rotated", "expiry"),
    "flaky": ("flake", "flakes", "flaky", "intermittent"),
    "parallel": ("parallel", "concurrently", "workers", "serially"),
    "hosting": ("hosted", "hosting", "host", "netlify", "github pages", "vercel"),
    "schema-codegen": (
        "generated",
        "regenerated",
        "autogenerated",
        "auto-generated",
        "codegen",
        "openapi",
    ),
    "site-generator": (
        "static site",
        "site generator",
        "static generator",
        "ssg",
        "mkdocs",
        "hugo",
        "jekyll",
        "docusaurus",
        "sphinx",
        "eleventy",
    ),
    "containers": ("container", "containers", "docker", "compose", "podman"),
    "secret": ("secret", "secrets", "token", "password", "credentials", "api key"),
    "timezone": ("timezone", "time zone", "time_zone", "tz"),
    "git-branch": ("branch", "branches", "main", "master", "develop", "trunk"),
}


def compile_groups(
    stem_words,
) -> tuple[
    dict[str, tuple[str, ...]],  # noqa: ANN001
    list[tuple[frozenset[str], str]],
]:
    """(term -> group tokens, [(phrase terms, token)]), by lexicon's one rule for word groups."""
    return compile_word_groups(GROUPS, "≈", stem_words)
