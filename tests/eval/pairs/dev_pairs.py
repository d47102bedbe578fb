"""Further labelled pairs for the conflict benchmark, all in the dev split (issue 13): written
from a user's side before the detector was run on them, in the categories real users produce
(two tools for two jobs, two procedures for two tasks, numbers in two roles, a rule and its
exception, two environments, two scopes of a preference, negations that do not contradict,
renamed tools, rivals with paraphrased values). Same entry shape as pairs.py; the frozen test
split there is untouched because these pairs are never drawn."""

from __future__ import annotations

F, P, C, D, R = "fact", "procedure", "constraint", "decision", "preference"
A, N = "assert", "deny"

# One pair a line, so the set reads as a table (ruff format would spread it over 700 lines).
# fmt: off
DEV_PAIRS = (
    # ---- compatible: two allowed tools for different jobs -------------------------------------
    ("two-tools", "compatible", ("We use ruff for linting", F, A), ("We use black for formatting", F, A)),
    ("two-tools", "compatible", ("Use pytest for the unit tests", P, A), ("Use playwright for the browser tests", P, A)),
    ("two-tools", "compatible", ("We use Redis as the cache", F, A), ("We use Postgres as the main database", F, A)),
    ("two-tools", "compatible", ("The frontend is bundled with Vite", F, A), ("The backend is packaged with poetry", F, A)),
    ("two-tools", "compatible", ("We use Sentry for error tracking", F, A), ("We use Grafana for dashboards", F, A)),
    ("two-tools", "compatible", ("mypy checks the types in CI", F, A), ("ruff checks the imports in CI", F, A)),
    ("two-tools", "compatible", ("Use pnpm for the web app dependencies", P, A), ("Use uv for the Python dependencies", P, A)),
    ("two-tools", "compatible", ("Terraform manages the cloud resources", F, A), ("Helm manages the Kubernetes releases", F, A)),
    ("two-tools", "compatible", ("We use GitHub Actions for CI", F, A), ("We use Argo CD for deployments", F, A)),
    ("two-tools", "compatible", ("Logs go to Loki", F, A), ("Metrics go to Prometheus", F, A)),
    ("two-tools", "compatible", ("Use jq to inspect the JSON fixtures", P, A), ("Use yq to edit the YAML manifests", P, A)),
    ("two-tools", "compatible", ("We use Celery for background jobs", F, A), ("We use cron for the nightly backup", F, A)),
    # ---- compatible: two procedures for two tasks ---------------------------------------------
    ("two-tasks", "compatible", ("To run the tests, run `make test`", P, A), ("To build the docs, run `make docs`", P, A)),
    ("two-tasks", "compatible", ("Deploy staging with `./deploy.sh staging`", P, A), ("Roll back with `./rollback.sh`", P, A)),
    ("two-tasks", "compatible", ("Start the dev server with `npm run dev`", P, A), ("Build for production with `npm run build`", P, A)),
    ("two-tasks", "compatible", ("Run migrations with `alembic upgrade head`", P, A), ("Create a migration with `alembic revision --autogenerate`", P, A)),
    ("two-tasks", "compatible", ("To release, tag the commit and push the tag", P, A), ("To hotfix, branch from the last release tag", P, A)),
    ("two-tasks", "compatible", ("Seed the local database with `make seed`", P, A), ("Reset the local database with `make db-reset`", P, A)),
    ("two-tasks", "compatible", ("Regenerate the API client with `make openapi`", P, A), ("Regenerate the protobuf stubs with `make proto`", P, A)),
    ("two-tasks", "compatible", ("Lint the code with `ruff check .`", P, A), ("Format the code with `ruff format .`", P, A)),
    ("two-tasks", "compatible", ("Run the benchmarks with `pytest tests/bench`", P, A), ("Run the unit tests with `pytest tests/unit`", P, A)),
    ("two-tasks", "compatible", ("Update the snapshots with `pytest --snapshot-update`", P, A), ("Run the tests in parallel with `pytest -n auto`", P, A)),
    # ---- compatible: numbers in different roles -----------------------------------------------
    ("number-roles", "compatible", ("The API listens on port 8080", F, A), ("The API request timeout is 30 seconds", F, A)),
    ("number-roles", "compatible", ("Postgres listens on port 5432", F, A), ("Postgres allows 100 connections at most", F, A)),
    ("number-roles", "compatible", ("The web app runs on Node 20", F, A), ("The API runs on Python 3.11", F, A)),
    ("number-roles", "compatible", ("We pin Django to 4.2", F, A), ("We pin Celery to 5.3", F, A)),
    ("number-roles", "compatible", ("Retries are capped at 3 attempts", C, A), ("Each retry waits 5 seconds", F, A)),
    ("number-roles", "compatible", ("The cache TTL is 300 seconds", F, A), ("Redis runs on port 6379", F, A)),
    ("number-roles", "compatible", ("Lines are at most 100 characters", C, A), ("Functions are at most 50 lines", C, A)),
    ("number-roles", "compatible", ("The worker pool has 8 workers", F, A), ("The queue holds 1000 jobs at most", F, A)),
    ("number-roles", "compatible", ("Coverage must stay above 80 percent", C, A), ("The test suite must finish in 10 minutes", C, A)),
    ("number-roles", "compatible", ("The Go service uses Go 1.22", F, A), ("The Rust CLI uses Rust 1.78", F, A)),
    ("number-roles", "compatible", ("Upload size is limited to 10 MB", C, A), ("Rate limit is 100 requests per minute", C, A)),
    ("number-roles", "compatible", ("The metrics endpoint is on port 9090", F, A), ("The health check endpoint is on port 8081", F, A)),
    # ---- compatible: a rule plus its exception ------------------------------------------------
    ("exception", "compatible", ("Never commit directly to main", C, N), ("Release bots may commit the changelog to main", C, A)),
    ("exception", "compatible", ("All PRs need two approvals", C, A), ("Docs-only PRs need one approval", C, A)),
    ("exception", "compatible", ("Do not add new dependencies without asking", C, N), ("Dev-only test dependencies can be added freely", C, A)),
    ("exception", "compatible", ("Do not use print for output", C, N), ("print is fine in the CLI entry point", C, A)),
    ("exception", "compatible", ("Every function needs type hints", C, A), ("Test functions may skip return type hints", C, A)),
    ("exception", "compatible", ("No deploys on Fridays", C, N), ("Security hotfixes can be deployed any day", C, A)),
    ("exception", "compatible", ("Do not mock the database in tests", C, N), ("Mocking the payment gateway in tests is fine", C, A)),
    ("exception", "compatible", ("Do not edit generated files", C, N), ("You may edit the generated client's README", C, A)),
    ("exception", "compatible", ("Keep modules under 300 lines", C, A), ("The migrations module may be longer", C, A)),
    ("exception", "compatible", ("Never skip the pre-commit hooks", C, N), ("Skipping the hooks is allowed on WIP branches", C, A)),
    # ---- compatible: the same subject in two environments -------------------------------------
    ("environments", "compatible", ("Staging runs on us-east-1", F, A), ("Production runs on eu-west-1", F, A)),
    ("environments", "compatible", ("Staging postgres listens on port 5433", F, A), ("Production postgres listens on port 5432", F, A)),
    ("environments", "compatible", ("Locally the API uses SQLite", F, A), ("In production the API uses Postgres", F, A)),
    ("environments", "compatible", ("Staging deploys from the develop branch", F, A), ("Production deploys from the main branch", F, A)),
    ("environments", "compatible", ("In CI the tests run with 4 workers", F, A), ("Locally the tests run with 2 workers", F, A)),
    ("environments", "compatible", ("The staging URL is staging.example.com", F, A), ("The production URL is app.example.com", F, A)),
    ("environments", "compatible", ("Debug logging is on in development", F, A), ("Debug logging is off in production", F, N)),
    ("environments", "compatible", ("Staging uses the Stripe test keys", F, A), ("Production uses the Stripe live keys", F, A)),
    ("environments", "compatible", ("On macOS install with Homebrew", P, A), ("On Linux install with apt", P, A)),
    ("environments", "compatible", ("The dev cluster has 2 nodes", F, A), ("The prod cluster has 6 nodes", F, A)),
    # ---- compatible: preferences at different scopes ------------------------------------------
    ("scopes", "compatible", ("I prefer tabs in Go code", R, A), ("I prefer 4 spaces in Python code", R, A)),
    ("scopes", "compatible", ("Use single quotes in JavaScript", R, A), ("Use double quotes in Python", R, A)),
    ("scopes", "compatible", ("Commit messages are in the imperative mood", R, A), ("PR titles start with the ticket number", R, A)),
    ("scopes", "compatible", ("I like short answers in chat", R, A), ("I like detailed docstrings in code", R, A)),
    ("scopes", "compatible", ("Name test files test_*.py", R, A), ("Name fixture files *.json", R, A)),
    ("scopes", "compatible", ("Use snake_case for Python functions", R, A), ("Use camelCase for TypeScript functions", R, A)),
    ("scopes", "compatible", ("Prefer dataclasses for internal models", R, A), ("Prefer pydantic for API models", R, A)),
    ("scopes", "compatible", ("Squash merge feature branches", R, A), ("Rebase merge release branches", R, A)),
    # ---- compatible: negations that do not contradict -----------------------------------------
    ("negation-compatible", "compatible", ("Never force-push main", C, N), ("Force-pushing your own branches is fine", C, A)),
    ("negation-compatible", "compatible", ("Do not run migrations in production by hand", C, N), ("Run migrations locally with `make migrate`", P, A)),
    ("negation-compatible", "compatible", ("We do not use Docker in CI", F, N), ("We use Docker for local development", F, A)),
    ("negation-compatible", "compatible", ("Do not store secrets in the repo", C, N), ("Store secrets in 1Password", P, A)),
    ("negation-compatible", "compatible", ("Don't use the ORM for reports", C, N), ("Use the ORM for CRUD endpoints", P, A)),
    ("negation-compatible", "compatible", ("Never deploy from a laptop", C, N), ("Deploy from the CI pipeline", P, A)),
    ("negation-compatible", "compatible", ("We don't support Python 3.9", F, N), ("We support Python 3.11", F, A)),
    ("negation-compatible", "compatible", ("Do not log request bodies", C, N), ("Log request ids", C, A)),
    ("negation-compatible", "compatible", ("Tests must not hit the network", C, N), ("Tests may talk to 127.0.0.1", C, A)),
    ("negation-compatible", "compatible", ("Don't edit the lockfile by hand", C, N), ("Update the lockfile with `uv lock`", P, A)),
    # ---- compatible: one value said twice, with other words ------------------------------------
    ("restated", "compatible", ("We use uv for Python packages", F, A), ("Python dependencies are managed with uv", F, A)),
    ("restated", "compatible", ("The API listens on port 8080", F, A), ("The API port is 8080", F, A)),
    ("restated", "compatible", ("We deploy to Fly.io", F, A), ("Deployment target is Fly.io", F, A)),
    ("restated", "compatible", ("Format with black", P, A), ("black is our formatter", F, A)),
    ("restated", "compatible", ("We're on Postgres 15", F, A), ("The database is Postgres 15", F, A)),
    ("restated", "compatible", ("Never force-push main", C, N), ("Do not force push to the main branch", C, N)),
    # ---- compatible: renamed tool mentioned with its old name ---------------------------------
    ("renamed-compatible", "compatible", ("We use OpenTofu, the fork of Terraform", F, A), ("OpenTofu manages the cloud resources", F, A)),
    ("renamed-compatible", "compatible", ("Valkey is our Redis-compatible cache", F, A), ("The cache is Valkey", F, A)),
    ("renamed-compatible", "compatible", ("We use Podman instead of Docker for local containers", F, A), ("Local containers run on Podman", F, A)),
    ("renamed-compatible", "compatible", ("Tests run with vitest", F, A), ("vitest runs the unit tests in watch mode with `npx vitest`", P, A)),
    # ---- rival: paraphrased values ------------------------------------------------------------
    ("paraphrase", "rival", ("We use poetry for Python dependencies", F, A), ("Python packages are managed with uv", F, A)),
    ("paraphrase", "rival", ("We deploy to Heroku", F, A), ("Deployment target is Fly.io", F, A)),
    ("paraphrase", "rival", ("The API listens on port 8080", F, A), ("The API port is 3000", F, A)),
    ("paraphrase", "rival", ("Format with black", P, A), ("Our formatter is ruff format", F, A)),
    ("paraphrase", "rival", ("The database is Postgres", F, A), ("We store our data in MySQL", F, A)),
    ("paraphrase", "rival", ("We use GitHub Actions for CI", F, A), ("CI runs on CircleCI", F, A)),
    ("paraphrase", "rival", ("Tests run with jest", F, A), ("We use vitest for the unit tests", F, A)),
    ("paraphrase", "rival", ("Logs go to Datadog", F, A), ("We send our logs to Loki", F, A)),
    # ---- rival: numbers -----------------------------------------------------------------------
    ("number", "rival", ("Staging postgres listens on port 5432", F, A), ("Staging postgres listens on port 5433, not the default 5432", F, A)),
    ("number", "rival", ("The request timeout is 30 seconds", F, A), ("The request timeout is 60 seconds", F, A)),
    ("number", "rival", ("Lines are at most 88 characters", C, A), ("Lines are at most 120 characters", C, A)),
    ("number", "rival", ("Retries are capped at 3 attempts", C, A), ("Retries are capped at 5 attempts", C, A)),
    ("number", "rival", ("Coverage must stay above 80 percent", C, A), ("Coverage must stay above 90 percent", C, A)),
    ("number", "rival", ("The worker pool has 8 workers", F, A), ("The worker pool has 16 workers", F, A)),
    ("number", "rival", ("Redis runs on port 6379", F, A), ("Redis runs on port 6380", F, A)),
    ("number", "rival", ("PRs need two approvals", C, A), ("PRs need one approval", C, A)),
    # ---- rival: versions ----------------------------------------------------------------------
    ("version", "rival", ("The API runs on Python 3.11", F, A), ("The API runs on Python 3.12", F, A)),
    ("version", "rival", ("The web app runs on Node 18", F, A), ("The web app runs on Node 20", F, A)),
    ("version", "rival", ("We pin Django to 4.2", F, A), ("We pin Django to 5.0", F, A)),
    ("version", "rival", ("We're on Postgres 14", F, A), ("The database is Postgres 16", F, A)),
    ("version", "rival", ("The Go service uses Go 1.21", F, A), ("The Go service uses Go 1.22", F, A)),
    ("version", "rival", ("We use React 17", F, A), ("We upgraded to React 18", F, A)),
    # ---- rival: renamed or replaced tools -----------------------------------------------------
    ("renamed", "rival", ("Terraform manages the cloud resources", F, A), ("OpenTofu manages the cloud resources", F, A)),
    ("renamed", "rival", ("We use Redis as the cache", F, A), ("We moved the cache from Redis to Valkey", D, A)),
    ("renamed", "rival", ("Lint with flake8", P, A), ("Lint with ruff", P, A)),
    ("renamed", "rival", ("Use yarn for the web app dependencies", P, A), ("Use pnpm for the web app dependencies", P, A)),
    ("renamed", "rival", ("We use Docker for local containers", F, A), ("We switched local containers to Podman", D, A)),
    ("renamed", "rival", ("Sort imports with isort", P, A), ("Sort imports with ruff", P, A)),
    # ---- rival: negations ---------------------------------------------------------------------
    ("negation", "rival", ("Force-pushing main is allowed", C, A), ("Never force-push main", C, N)),
    ("negation", "rival", ("We use Docker in CI", F, A), ("We do not use Docker in CI", F, N)),
    ("negation", "rival", ("Deploys on Fridays are fine", C, A), ("No deploys on Fridays", C, N)),
    ("negation", "rival", ("Mock the database in tests", P, A), ("Do not mock the database in tests", C, N)),
    ("negation", "rival", ("We support Python 3.9", F, A), ("We don't support Python 3.9", F, N)),
    ("negation", "rival", ("Debug logging is on in production", F, A), ("Debug logging is off in production", F, N)),
    # ---- rival: same environment, different value ---------------------------------------------
    ("environment-rival", "rival", ("Production runs on eu-west-1", F, A), ("Production runs on us-east-1", F, A)),
    ("environment-rival", "rival", ("Staging deploys from the develop branch", F, A), ("Staging deploys from the main branch", F, A)),
    ("environment-rival", "rival", ("The staging URL is staging.example.com", F, A), ("The staging URL is stage.example.org", F, A)),
    ("environment-rival", "rival", ("In CI the tests run with 4 workers", F, A), ("In CI the tests run with 8 workers", F, A)),
    # ---- rival: paths -------------------------------------------------------------------------
    ("path", "rival", ("The config lives in config/settings.toml", F, A), ("The config lives in etc/memvet.toml", F, A)),
    ("path", "rival", ("Migrations are in db/migrations", F, A), ("Migrations are in alembic/versions", F, A)),
)
# fmt: on
