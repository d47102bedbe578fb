"""Templates of the corpus, written from the user's side: how people state a lasting rule to a
coding agent (by kind and scope), and every kind of sentence that looks like one and is not.

A positive is (family, kind, scope, polarity, what the user types, the self-contained statement
a reviewer would approve). A negative is (family, what the user types). Families are the unit
of the train/dev/test split, so test phrasings are never seen in training.
"""

from __future__ import annotations

import random

from slots import (
    BRANCH_STYLES,
    BRANCHES,
    CITIES,
    COMMANDS,
    DIRS,
    EDITORS,
    FILES,
    LANGS,
    MACHINES,
    MODULES,
    NOUNS,
    PEOPLE,
    PLATFORMS,
    PORTS,
    SERVICES,
    SHELLS,
    STYLE_RULES,
    TASKS,
    TOOL_PAIRS,
)


def draw(rng: random.Random) -> dict[str, str]:
    new, old, cat = rng.choice(TOOL_PAIRS)
    task, cmds = rng.choice(TASKS)
    noun, req = rng.choice(NOUNS)
    n = str(rng.choice([20, 30, 40, 50, 60, 80]))
    style, style_stmt = rng.choice(STYLE_RULES)
    city, tz = rng.choice(CITIES)
    other = rng.choice([f for f in COMMANDS])
    return {"new": new, "old": old, "cat": cat, "dir": rng.choice(DIRS), "file": rng.choice(FILES),
            "branch": rng.choice(BRANCHES), "cmd": other, "task": task, "taskcmd": rng.choice(cmds),
            "platform": rng.choice(PLATFORMS), "service": rng.choice(SERVICES), "port": rng.choice(PORTS),
            "noun": noun, "req": req, "n": n, "style": style.format(n=n), "style_stmt": style_stmt.format(n=n),
            "machine": rng.choice(MACHINES), "shell": rng.choice(SHELLS), "editor": rng.choice(EDITORS),
            "city": city, "tz": tz, "bstyle": rng.choice(BRANCH_STYLES), "module": rng.choice(MODULES),
            "lang": rng.choice(LANGS), "person": rng.choice(PEOPLE), "file2": rng.choice(FILES)}


W, G = "workspace", "global"
A, D = "assert", "deny"

# (family, kind, scope, polarity, typed, statement)
POSITIVES = [
    # preference: tools and style, with and without trigger words
    ("pref-use-not", "preference", W, A, "use {new}, not {old}", "Use {new}, not {old}."),
    ("pref-bare-not", "preference", W, A, "{new}, not {old}", "Use {new}, not {old}, for {cat}."),
    ("pref-over", "preference", W, A, "{new} over {old} for {cat}", "Prefer {new} over {old} for {cat}."),
    ("pref-rather", "preference", W, A, "I'd rather you reach for {new} than {old} when it comes to {cat}",
     "Use {new} rather than {old} for {cat}."),
    ("pref-stick", "preference", W, A, "stick with {new} for {cat} in this repo", "Use {new} for {cat} in this repo."),
    ("pref-only", "preference", W, A, "no {old}, {new} only", "Use {new} only, no {old}."),
    ("pref-we-use", "preference", W, A, "we use {new} for {cat} here", "This project uses {new} for {cat}."),
    ("pref-style", "preference", W, A, "{style}", "{style_stmt}"),
    ("pref-style-pls", "preference", W, A, "please, {style} from now on", "{style_stmt}"),
    ("pref-style-always", "preference", W, A, "always {style}", "{style_stmt}"),
    ("pref-going-with", "preference", W, A, "for {cat} we lean on {new} here, {old} is not welcome",
     "Use {new} for {cat}, not {old}."),
    ("pref-default", "preference", W, A, "by default reach for {new} whenever you need {cat}", "Use {new} for {cat} by default."),
    ("pref-like", "preference", G, A, "I like {style}, in every project", "{style_stmt}"),
    ("pref-all-repos", "preference", G, A, "across all my repos: {new} for {cat}", "Use {new} for {cat} in all projects."),
    ("pref-my-style", "preference", G, A, "my style everywhere is {style}", "{style_stmt}"),
    ("pref-global-always", "preference", G, A, "wherever I work, always {style}", "{style_stmt}"),
    ("pref-short", "preference", G, A, "I prefer short answers with the command first, in general",
     "Give short answers with the command first."),
    ("pref-here-there", "preference", W, A, "{new} in the backend, {old} in the scripts",
     "Use {new} in the backend and {old} in the scripts."),
    # constraint: prohibitions and requirements
    ("con-never-commit", "constraint", W, D, "never commit straight to {branch}", "Never commit directly to {branch}."),
    ("con-dont-touch", "constraint", W, D, "don't touch anything under {dir}, it's generated",
     "Do not edit anything under {dir}; it is generated."),
    ("con-generated", "constraint", W, D, "{dir} is generated - hands off, regenerate instead",
     "Do not edit {dir} by hand; regenerate it."),
    ("con-every-needs", "constraint", W, A, "every {noun} needs {req}", "Every {noun} needs {req}."),
    ("con-all-must", "constraint", W, A, "all {noun}s must have {req}", "Every {noun} must have {req}."),
    ("con-no-network", "constraint", W, D, "no network calls in unit tests, ever", "Never make network calls in unit tests."),
    ("con-secrets", "constraint", W, D, "secrets never go in {file}", "Never put secrets in {file}."),
    ("con-sorted", "constraint", W, A, "{file} has to stay sorted", "Keep {file} sorted."),
    ("con-ask-first", "constraint", W, D, "don't add a dependency without asking me first",
     "Do not add a dependency without asking first."),
    ("con-no-force", "constraint", G, D, "never force-push, in any of my repositories",
     "Never force-push."),
    ("con-never-old", "constraint", W, D, "never use {old} in this codebase", "Never use {old} in this codebase."),
    ("con-stop-using", "constraint", W, D, "stop reaching for {old}, we don't allow it here", "Do not use {old}."),
    ("con-must-pass", "constraint", W, A, "`{cmd}` must pass before anything gets merged",
     "`{cmd}` must pass before anything is merged."),
    ("con-global-no", "constraint", G, D, "in all my projects, no emojis in commit messages",
     "Do not put emojis in commit messages."),
    # decision: choices made
    ("dec-went-with", "decision", W, A, "we went with {new} for {cat}", "We chose {new} for {cat}."),
    ("dec-moved", "decision", W, A, "we moved from {old} to {new} last month", "The project moved from {old} to {new}."),
    ("dec-decided", "decision", W, A, "decided: {new} instead of {old}, don't reopen it",
     "We decided to use {new} instead of {old}."),
    ("dec-stays", "decision", W, A, "{cat} stays on {new}", "{cat} stays on {new}."),
    ("dec-picked", "decision", W, A, "after the spike we picked {new} over {old}", "We picked {new} over {old}."),
    ("dec-dropped", "decision", W, A, "we dropped {old} for good; it's {new} now", "We replaced {old} with {new}."),
    ("dec-agreed", "decision", W, A, "the team agreed {service} runs on {platform}", "{service} runs on {platform}."),
    # procedure: how to do things here
    ("proc-to-run", "procedure", W, A, "to {task} here, run `{taskcmd}`", "To {task}, run `{taskcmd}`."),
    ("proc-goes-through", "procedure", W, A, "{task} always goes through `{taskcmd}`", "To {task}, run `{taskcmd}`."),
    ("proc-before-push", "procedure", W, A, "before pushing, run `{cmd}`", "Run `{cmd}` before pushing."),
    ("proc-steps", "procedure", W, A, "release flow: bump the version in {file}, tag it, then `{taskcmd}`",
     "To release: bump the version in {file}, tag it, then run `{taskcmd}`."),
    ("proc-tests-with", "procedure", W, A, "tests run with `{cmd}`, not the bare runner",
     "Run the tests with `{cmd}`."),
    ("proc-when", "procedure", W, A, "whenever the lockfile conflicts, delete it and rerun `{cmd}`",
     "When the lockfile conflicts, delete it and rerun `{cmd}`."),
    ("proc-after-schema", "procedure", W, A, "after changing a schema you regenerate with `{taskcmd}`",
     "After changing a schema, regenerate with `{taskcmd}`."),
    # fact: the workspace and the user
    ("fact-lives", "fact", W, A, "the API code lives in {dir}", "The API code lives in {dir}."),
    ("fact-hosted", "fact", W, A, "{service} is hosted on {platform}", "{service} is hosted on {platform}."),
    ("fact-port", "fact", W, A, "staging postgres listens on {port}", "The staging Postgres listens on port {port}."),
    ("fact-ci", "fact", W, A, "our CI is {new}", "CI runs on {new}."),
    ("fact-deploy", "fact", W, A, "we deploy {service} to {platform}", "{service} is deployed to {platform}."),
    ("fact-lang", "fact", W, A, "this repo is {lang} end to end", "This repository is written in {lang}."),
    ("fact-machine", "fact", G, A, "I'm on {machine}", "The user works on {machine}."),
    ("fact-shell", "fact", G, A, "my shell is {shell}", "The user's shell is {shell}."),
    ("fact-editor", "fact", G, A, "I use {editor}", "The user's editor is {editor}."),
    ("fact-city", "fact", G, A, "I'm in {city}, so times in {tz} please", "The user is in {city}; give times in {tz}."),
    ("fact-branch", "preference", G, A, "I name branches {bstyle}", "Name branches {bstyle}."),
    ("fact-spelling", "preference", G, A, "I write British English", "Use British English."),
]

# (family, typed): sentences that look like a rule and are not one
NEGATIVES = [
    # one-off tasks phrased as statements
    ("neg-oneoff-value", "the timeout in {file} needs to be 30s"),
    ("neg-oneoff-go", "{file} has to go, it's dead code"),
    ("neg-oneoff-color", "the save button on the settings page needs to be blue"),
    ("neg-oneoff-retry", "the retry count for {module} should be 5 instead of 3"),
    ("neg-oneoff-rename", "{module} needs a better name"),
    ("neg-oneoff-bump", "{new} has to be bumped to the latest minor"),
    ("neg-oneoff-flag", "the beta flag must be off in the next build"),
    # port X to Y / migrate this
    ("neg-port", "port {module} to {lang}"),
    ("neg-port-2", "let's move {module} from {old} to {new}"),
    ("neg-convert", "convert {file} to the new format"),
    # headings of work items
    ("neg-heading", "## Feature: {module} rewrite"),
    ("neg-heading-bug", "Bug: {service} returns 500 on empty carts"),
    ("neg-heading-task", "Task: migrate {module} to {new}"),
    ("neg-heading-todo", "TODO: never-ending spinner on the login page"),
    ("neg-ticket", "PROJ-{port}: always show the banner on first login"),
    # instructions about this turn's output
    ("neg-out-diff", "just give me the diff"),
    ("neg-out-table", "answer as a table this time"),
    ("neg-out-short", "keep this reply short"),
    ("neg-out-noexplain", "no explanation needed, only the code for this one"),
    ("neg-out-cmd", "reply with only the command"),
    ("neg-out-steps", "list the steps first, then wait for me"),
    # pronoun or missing subject
    ("neg-pron-it", "it should never be null"),
    ("neg-pron-they", "they need to be async"),
    ("neg-pron-that", "that must stay private"),
    ("neg-pron-this", "this has to be idempotent"),
    ("neg-pron-always", "always does that when the cache is cold"),
    ("neg-pron-never", "never with {platform}"),
    # time-limited prohibitions
    ("neg-time-today", "don't deploy today"),
    ("neg-time-fornow", "skip the e2e tests for now"),
    ("neg-time-yet", "don't merge {branch} yet"),
    ("neg-time-freeze", "until the freeze ends, no pushes to {branch}"),
    ("neg-time-week", "this week we only ship hotfixes"),
    ("neg-time-moment", "leave {dir} alone at the moment"),
    ("neg-time-pr", "don't touch {file} in this PR"),
    # remarks about something broken
    ("neg-broken-build", "the build is broken on {branch}"),
    ("neg-broken-never", "`{cmd}` never finishes on my machine since the update"),
    ("neg-broken-always", "{service} always times out when the cache is cold"),
    ("neg-broken-ci", "tests are failing in CI again"),
    ("neg-broken-crash", "{editor} keeps crashing when I open {file}"),
    # questions
    ("neg-q-should", "should we always use {new}?"),
    ("neg-q-which", "do we use {new} or {old} here"),
    ("neg-q-why", "why does `{cmd}` never finish"),
    ("neg-q-where", "where does {service} get deployed"),
    ("neg-q-is", "is {dir} generated or hand-written?"),
    # hypotheticals
    ("neg-hyp-if", "if we ever move to {new}, we'd have to rewrite the adapters"),
    ("neg-hyp-whatif", "what if we always ran `{cmd}` in a container"),
    ("neg-hyp-suppose", "suppose we drop {old} entirely"),
    ("neg-hyp-could", "we could switch {service} to {platform} at some point"),
    # reported speech
    ("neg-rep-said", "{person} said we should never use {old}"),
    ("neg-rep-docs", "the docs say to always pin versions"),
    ("neg-rep-thinks", "{person} thinks {new} is better than {old}"),
    ("neg-rep-readme", "according to the README, deploys go through `{taskcmd}`"),
    ("neg-rep-blog", "a blog post I read claims {new} is always faster"),
    # plain task requests and chit-chat
    ("neg-task-add", "add a retry to {module}"),
    ("neg-task-fix", "fix the flaky test in {file}"),
    ("neg-task-rename", "rename {module} to something clearer and update the imports"),
    ("neg-task-look", "take a look at {file} and tell me what's off"),
    ("neg-task-write", "write a migration that adds an index on orders.created_at"),
    ("neg-chat-thanks", "thanks, that works"),
    ("neg-chat-ok", "ok go ahead"),
    ("neg-chat-nice", "nice, much better"),
    ("neg-chat-hmm", "hmm interesting"),
    ("neg-status", "I pushed the branch, CI is running"),
    ("neg-opinion", "honestly {old} is such a pain to configure"),
]

# The assistant's standing proposals a user may adopt, and one-off ones a bare "ok" accepts.
PROPOSALS = [
    ("I could add a pre-commit hook that runs `{cmd}` before every commit.", "Run `{cmd}` in a pre-commit hook before every commit.", "procedure"),
    ("One option is to keep all {cat} code behind a thin adapter so {new} can be swapped out.",
     "Keep all {cat} code behind a thin adapter around {new}.", "preference"),
    ("I'd suggest we always pin {new} to an exact version in {file}.", "Pin {new} to an exact version in {file}.", "constraint"),
    ("Going forward I can write a short ADR in docs/adr/ for every architectural change.",
     "Write a short ADR in docs/adr/ for every architectural change.", "procedure"),
    ("We could make every {noun} carry {req}.", "Every {noun} needs {req}.", "constraint"),
    ("I can log with {new} instead of print statements everywhere.", "Log with {new} instead of print statements.", "preference"),
]
ONE_OFF_PROPOSALS = [
    "I can add a retry with backoff to {module} now.",
    "Want me to rename {module} and update the imports?",
    "I could bump {new} in {file} to the latest release.",
    "Shall I rerun `{cmd}` with verbose output?",
    "I can split {file} into two modules.",
]
ADOPT_REPLIES = ["yes, make that the rule going forward", "good idea - from now on do that", "yes. keep doing that from now on",
                 "let's make that a standing rule", "do that every time from here on", "agreed, that's the convention now"]
ACK_REPLIES = ["ok do it", "yes", "sure, go ahead", "yep", "sounds good", "ok", "do it"]
