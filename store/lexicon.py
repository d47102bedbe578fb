"""A small vocabulary of software-project concepts, so that lexical recall can see that "pnpm"
answers "which package manager" and "sqlc" a question about the database.

Each concept is named by its words: a term set (text_terms.terms) that holds any single word of
a concept, or every word of one of its phrases, also holds the concept's token (`~name`, which no
text can spell). Both sides of a match are expanded, so the token counts like any shared word.
Deliberately short: tool families a coding agent is asked about, nothing project-specific.
"""

from __future__ import annotations

import re

CONCEPTS: dict[str, tuple[str, ...]] = {
    "package-manager": (
        "package manager",
        "dependency",
        "dependencies",
        "deps",
        "lockfile",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "pip",
        "uv",
        "poetry",
        "pipenv",
        "conda",
        "cargo",
        "bundler",
        "composer",
        "gradle",
        "maven",
    ),
    "database": (
        "database",
        "db",
        "sql",
        "postgres",
        "postgresql",
        "mysql",
        "sqlite",
        "orm",
        "sqlc",
        "sqlalchemy",
        "prisma",
        "mongodb",
    ),
    "ci": ("ci", "github actions", "circleci", "jenkins", "buildkite", "travis", "gitlab ci"),
    "styling": ("style", "styling", "css", "scss", "sass", "tailwind", "styled-components"),
    "shell": ("shell", "sh", "bash", "zsh", "shfmt"),
    "indentation": ("indent", "indentation", "tabs", "spaces"),
    "test-framework": ("test framework", "pytest", "unittest", "jest", "vitest", "mocha", "rspec"),
    "lint": ("lint", "linter", "linting", "eslint", "ruff", "flake8", "pylint", "clippy", "isort"),
    "format": (
        "format",
        "formatter",
        "formatting",
        "prettier",
        "black",
        "biome",
        "gofmt",
        "rustfmt",
    ),
    "concurrency": ("async", "asyncio", "tokio", "concurrent", "concurrently", "concurrency"),
    "warehouse": ("warehouse", "snowflake", "bigquery", "redshift"),
    "container": ("docker", "container", "containers", "podman", "dockerfile"),
    "infrastructure": ("infrastructure", "terraform", "opentofu", "pulumi", "cloudformation"),
}

# Programming languages: a value a tool choice is made for (near_duplicates.py, slots.py).
LANGUAGES = frozenset(
    """python go golang rust kotlin elixir typescript javascript java ruby swift zig
php scala haskell clojure erlang dart lua perl julia ocaml fsharp csharp c++ nim crystal""".split()
)


COMPOUND = re.compile(r"[-_./+#]")  # text_terms' compound separators


def compile_word_groups(
    groups: dict[str, tuple[str, ...]],
    prefix: str,
    stem_words,  # noqa: ANN001
) -> tuple[dict[str, tuple[str, ...]], list[tuple[frozenset[str], str]]]:
    """(term -> group tokens, [(phrase terms, token)]) for named word groups, with words turned
    into terms by `stem_words` (text_terms' own normalisation, passed in to keep one
    definition). One rule for the concepts here and the synonym groups of synonyms.py."""
    single: dict[str, tuple[str, ...]] = {}
    phrases: list[tuple[frozenset[str], str]] = []
    for name, words in groups.items():
        token = f"{prefix}{name}"
        for entry in words:
            found = stem_words(entry)
            if not found:
                continue  # an entry of stop words only would match every text
            if " " in entry:
                phrases.append((frozenset(found), token))
                continue
            # A compound ("pre-prod", "expo-router") is named by its whole, not by each part:
            # "prod" is no staging word, "react" no navigation one.
            whole = [t for t in found if COMPOUND.search(t)] if COMPOUND.search(entry) else []
            for term in whole or found:
                single[term] = (*single.get(term, ()), token)
    return single, phrases


def compile_concepts(
    stem_words,
) -> tuple[
    dict[str, tuple[str, ...]],  # noqa: ANN001
    list[tuple[frozenset[str], str]],
]:
    """(term -> concept tokens, [(phrase terms, token)])."""
    return compile_word_groups(CONCEPTS, "~", stem_words)
