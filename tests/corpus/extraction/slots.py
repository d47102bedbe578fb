"""Slot values for the templated part of the corpus: workspaces, tools, paths, people. Wide on
purpose (many stacks and topics) so that a model cannot score well by remembering vocabulary."""

from __future__ import annotations

WORKSPACES = [
    "ledger-api", "harbor-web", "tidewater-api", "quill-cli", "orchard-ml", "beacon-ios", "kestrel-infra",
    "parsnip-shop", "lumen-docs", "atlas-gateway", "fennel-etl", "marlin-game", "cobalt-firmware",
    "juniper-bot", "sprocket-rs", "wren-analytics", "basalt-k8s", "tundra-sync", "mosaic-design",
    "oriole-android", "garnet-billing", "cinder-search", "pylon-auth", "meadow-notes", "zephyr-edge",
]

# (preferred, rejected, what it is for)
TOOL_PAIRS = [
    ("pnpm", "npm", "packages"), ("uv", "pip", "dependencies"), ("poetry", "pipenv", "dependencies"),
    ("yarn", "npm", "installs"), ("bun", "node", "scripts"), ("pytest", "unittest", "tests"),
    ("vitest", "jest", "unit tests"), ("cargo nextest", "cargo test", "the test suite"),
    ("ruff", "flake8", "linting"), ("ruff format", "black", "formatting"), ("biome", "eslint", "linting"),
    ("prettier", "standard", "formatting"), ("gofumpt", "gofmt", "formatting"), ("httpx", "requests", "HTTP calls"),
    ("ky", "axios", "HTTP requests"), ("reqwest", "ureq", "HTTP"), ("drizzle", "prisma", "the ORM"),
    ("sqlx", "diesel", "database access"), ("SQLAlchemy Core", "the ORM layer", "queries"),
    ("structlog", "the logging module", "logs"), ("pino", "winston", "logging"), ("tracing", "log", "logging"),
    ("date-fns", "moment", "dates"), ("pendulum", "arrow", "timestamps"), ("zod", "yup", "validation"),
    ("pydantic v2", "marshmallow", "schemas"), ("Tailwind", "styled-components", "styling"),
    ("CSS modules", "inline styles", "styles"), ("Postgres", "MySQL", "the database"),
    ("SQLite", "Postgres", "local tests"), ("Redis streams", "RabbitMQ", "the job queue"),
    ("GitHub Actions", "CircleCI", "CI"), ("Terraform", "Pulumi", "infrastructure"),
    ("Helm", "kustomize", "manifests"), ("podman", "docker", "containers"), ("mise", "asdf", "tool versions"),
    ("just", "make", "task running"), ("tox", "nox", "test environments"), ("Playwright", "Cypress", "e2e tests"),
    ("Storybook", "Ladle", "component previews"), ("SwiftUI", "UIKit", "new screens"),
    ("Jetpack Compose", "XML layouts", "UI"), ("Kotlin coroutines", "RxJava", "async code"),
    ("asyncio", "threads", "concurrency"), ("tokio", "async-std", "the runtime"), ("serde_json", "simd-json", "JSON"),
    ("orjson", "the json module", "serialisation"), ("polars", "pandas", "dataframes"),
    ("duckdb", "sqlite", "analytics queries"), ("MLflow", "Weights & Biases", "experiment tracking"),
    ("hydra", "argparse", "configs"), ("Vite", "webpack", "bundling"), ("esbuild", "babel", "transpiling"),
    ("Fastify", "Express", "the HTTP server"), ("FastAPI", "Flask", "new services"), ("gRPC", "REST", "internal calls"),
    ("Celery", "RQ", "background jobs"), ("Alembic", "hand-written SQL", "migrations"), ("Sentry", "Rollbar", "errors"),
    ("OpenTelemetry", "statsd", "metrics"), ("Grafana", "Kibana", "dashboards"), ("fish", "bash", "shell scripts"),
    ("Zod schemas", "TypeScript interfaces", "API payloads"), ("Hypothesis", "hand-picked examples", "property tests"),
]
DIRS = ["vendor/", "generated/", "src/proto/", "migrations/", "dist/", "third_party/", "api/openapi/",
        "infra/prod/", "legacy/", "src/gen/", "assets/fonts/", "db/schema/", "tools/ci/", "docs/adr/",
        "internal/pb/", "lib/bindings/", "packages/ui/tokens/", "k8s/base/"]
FILES = ["config/settings.toml", "src/app/config.ts", "Makefile", ".env.example", "pyproject.toml",
         "package.json", "Cargo.toml", "docker-compose.yml", "tsconfig.json", "config/toggles.json",
         "src/lib/db.rs", "app/models/user.py", "internal/server/routes.go", "CHANGELOG.md",
         "charts/api/values.yaml", "src/main.swift", "web/src/routes.tsx", "scripts/release.sh"]
BRANCHES = ["main", "master", "develop", "release", "trunk", "prod"]
COMMANDS = ["make test", "just ci", "pnpm test:unit", "uv run pytest -q", "cargo nextest run", "go test ./...",
            "./scripts/check.sh", "npm run verify", "tox -e py311", "bazel test //...", "mix test",
            "bundle exec rspec", "gradle check", "swift test", "dotnet test", "nox -s lint", "pre-commit run -a"]
TASKS = [("deploy", ["./scripts/deploy.sh staging", "make deploy", "fly deploy", "just ship", "kubectl apply -k k8s/prod"]),
         ("release", ["just release", "./scripts/release.sh", "cargo release patch", "npm version patch && git push --tags"]),
         ("regenerate the client", ["make gen", "buf generate", "pnpm codegen", "go generate ./..."]),
         ("seed the database", ["make seed", "uv run python -m app.seed", "rails db:seed", "pnpm db:seed"]),
         ("run migrations", ["alembic upgrade head", "make migrate", "pnpm drizzle-kit push", "sqlx migrate run"]),
         ("start the dev server", ["pnpm dev", "just dev", "make run", "docker compose up api"]),
         ("update snapshots", ["pnpm test -u", "cargo insta review", "pytest --snapshot-update"]),
         ("build the docs", ["mkdocs build", "make docs", "pnpm docs:build", "sphinx-build docs out"])]
PLATFORMS = ["Fly.io", "Render", "Heroku", "AWS ECS", "a Hetzner box", "Cloud Run", "Vercel", "Netlify",
             "a k3s cluster", "Railway", "DigitalOcean App Platform", "bare metal in the office"]
SERVICES = ["the API", "the worker", "the admin panel", "staging", "the docs site", "the webhook relay",
            "the search service", "the billing cron", "the frontend", "the image resizer"]
PORTS = ["5433", "8081", "9090", "3001", "6380", "8443", "4000", "5173"]
NOUNS = [("migration", "a down step"), ("endpoint", "an integration test"), ("public function", "a docstring"),
         ("PR", "a linked ticket"), ("new table", "a created_at column"), ("feature flag", "an owner and an expiry date"),
         ("cron job", "a timeout"), ("React component", "a story"), ("SQL query", "a LIMIT"),
         ("error message", "a code"), ("config key", "a default"), ("new dependency", "a line in DEPENDENCIES.md"),
         ("commit", "a scope prefix"), ("CLI flag", "a --help text"), ("event", "a schema version")]
STYLE_RULES = [
    ("keep functions under {n} lines", "Keep functions under {n} lines."),
    ("early returns over nested ifs", "Prefer early returns over nested ifs."),
    ("f-strings, not .format()", "Use f-strings, not .format()."),
    ("named exports only, no default exports", "Use named exports only, no default exports."),
    ("snake_case for JSON keys", "Use snake_case for JSON keys."),
    ("type hints on every public function", "Put type hints on every public function."),
    ("one component per file", "Put one component per file."),
    ("absolute imports, never relative ones", "Use absolute imports, never relative ones."),
    ("const over let wherever possible", "Prefer const over let wherever possible."),
    ("UTC everywhere in the database", "Store times in UTC in the database."),
    ("small commits, one concern each", "Make small commits, one concern each."),
    ("tests next to the code, not in a separate tree", "Put tests next to the code, not in a separate tree."),
    ("errors wrapped with context, never bare", "Wrap errors with context, never return them bare."),
    ("guard clauses at the top of handlers", "Put guard clauses at the top of handlers."),
    ("dataclasses over dicts for records", "Prefer dataclasses over dicts for records."),
    ("conventional commit messages", "Write conventional commit messages."),
    ("British spelling in user-facing strings", "Use British spelling in user-facing strings."),
    ("2-space indentation in YAML", "Use 2-space indentation in YAML."),
]
PEOPLE = ["Dana", "Priya", "Marco", "Kenji", "Aisha", "Tomás", "Ingrid", "Olu", "Mei", "the tech lead",
          "my manager", "the security team", "someone on Slack", "the previous contractor"]
MACHINES = ["an M2 MacBook Air", "a ThinkPad running Fedora", "Windows with WSL2", "an old Intel Mac",
            "a Framework laptop on Arch", "a Raspberry Pi for the hardware tests", "Ubuntu 24.04 on a desktop"]
SHELLS = ["fish", "zsh", "nushell", "bash 5", "PowerShell"]
EDITORS = ["Neovim", "VS Code", "Helix", "Emacs", "JetBrains Rider", "Zed", "Sublime Text"]
CITIES = [("Lisbon", "WET"), ("Berlin", "CET"), ("Toronto", "Eastern time"), ("Singapore", "SGT"),
          ("Nairobi", "EAT"), ("São Paulo", "BRT"), ("Seattle", "Pacific time"), ("Melbourne", "AEST")]
BRANCH_STYLES = ["feat/<ticket>-<slug>", "<initials>/<topic>", "fix/<issue-number>", "yyyy-mm-dd-<topic>"]
MODULES = ["the auth middleware", "the CSV exporter", "the rate limiter", "the billing webhook handler",
           "the search indexer", "the image pipeline", "the settings page", "the retry helper", "the cache layer",
           "the invoice renderer", "the sync worker", "the onboarding flow", "the metrics exporter"]
LANGS = ["TypeScript", "Rust", "Go", "Python", "Kotlin", "Swift", "Elixir", "Zig", "C#"]
