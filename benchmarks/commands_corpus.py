"""A hand-labelled corpus of memories that cite commands, for bench_citations: each case is the
files of a repository, a change to it (files moved or deleted, or none), a memory written
against the repository before the change, and whether a reviewer would call the memory stale
after it (the command no longer runs as written). The negative cases are the commands that name
what need not exist: what they write, create or remove, build output, runtime files, paths
relative to a subproject, code examples in other languages.

Labelled by hand from what a reviewer would say, not from what the checker does.
"""

from __future__ import annotations

# (label, files, change: ("mv", old, new) / ("rm", path) steps, memory body, stale after?)
Case = tuple[str, tuple[str, ...], tuple[tuple[str, ...], ...], str, bool]

APP = (
    "manage.py", "tests/test_cart.py", "tests/test_api.py", "tests/integration/test_db.py",
    "src/shop/payments/gateway.py", "src/shop/__init__.py", "src/cart.test.ts",
    "src/components/Cart.test.tsx", "internal/pay/gateway.go", "cmd/gateway/main.go",
    "spec/models/order_spec.rb", "spec/system/checkout_spec.rb", "scripts/seed.sh",
    "scripts/release.sh", "scripts/backfill.py", "deploy/compose.yml", "k8s/deployment.yaml",
    "requirements/dev.txt", "web/src/a.test.ts", "web/package.json", "bin/setup",
    "services/api/tests/test_orders.py", "services/x/tests/test_api.py", "package.json",
    "Makefile", ".env.example", "infra/prod/main.tf",
)  # fmt: skip

CASES: list[Case] = [
    # Stale: what the command reads moved or went.
    (
        "pytest file moved",
        APP,
        (("mv", "tests/test_cart.py", "tests/unit/test_cart.py"),),
        "Run `pytest -q tests/test_cart.py` before touching the cart.",
        True,
    ),
    (
        "manage.py moved",
        APP,
        (("mv", "manage.py", "src/manage.py"),),
        "Migrate with `python manage.py migrate`.",
        True,
    ),
    (
        "npm test file deleted",
        APP,
        (("rm", "src/cart.test.ts"),),
        "Run `npm run test -- src/cart.test.ts` for the cart.",
        True,
    ),
    ("ruff folder moved", APP, (("mv", "src", "app"),), "Lint with `ruff check src/`.", True),
    (
        "go package moved",
        APP,
        (("mv", "internal/pay", "internal/payments"),),
        "`go test ./internal/pay/...` covers the providers.",
        True,
    ),
    (
        "rspec file deleted",
        APP,
        (("rm", "spec/models/order_spec.rb"),),
        "`bundle exec rspec spec/models/order_spec.rb:42` is the state machine example.",
        True,
    ),
    (
        "fenced pytest moved",
        APP,
        (("mv", "tests/test_api.py", "tests/unit/test_api.py"),),
        "Auth tests:\n\n```sh\npytest tests/test_api.py -k auth\n```",
        True,
    ),
    (
        "fenced script deleted",
        APP,
        (("rm", "scripts/seed.sh"),),
        "Seed the database:\n\n```console\n$ ./scripts/seed.sh\n```",
        True,
    ),
    (
        "compose file moved",
        APP,
        (("mv", "deploy/compose.yml", "compose.yaml"),),
        "Start it with `docker compose -f deploy/compose.yml up`.",
        True,
    ),
    (
        "cd then a test deleted",
        APP,
        (("rm", "web/src/a.test.ts"),),
        "`cd web && npm test -- src/a.test.ts` checks the widget.",
        True,
    ),
    (
        "uv run pytest moved",
        APP,
        (("mv", "tests/integration/test_db.py", "tests/db/test_db.py"),),
        "`uv run pytest tests/integration/test_db.py` needs Postgres.",
        True,
    ),
    (
        "python script deleted",
        APP,
        (("rm", "scripts/backfill.py"),),
        "Backfill with `python scripts/backfill.py --since 2024-01-01`.",
        True,
    ),
    (
        "npx jest moved",
        APP,
        (("mv", "src/components/Cart.test.tsx", "src/components/cart/Cart.test.tsx"),),
        "`npx jest src/components/Cart.test.tsx` snapshots the cart.",
        True,
    ),
    (
        "mypy folder moved",
        APP,
        (("mv", "src/shop/payments", "src/shop/billing"),),
        "Type-check payments with `mypy src/shop/payments/`.",
        True,
    ),
    (
        "kubectl manifest moved",
        APP,
        (("mv", "k8s/deployment.yaml", "k8s/app/deployment.yaml"),),
        "Apply with `kubectl apply -f k8s/deployment.yaml`.",
        True,
    ),
    (
        "requirements moved",
        APP,
        (("mv", "requirements/dev.txt", "requirements-dev.txt"),),
        "Install the tools with `pip install -r requirements/dev.txt`.",
        True,
    ),
    (
        "bash script deleted",
        APP,
        (("rm", "scripts/release.sh"),),
        "Releases go through `bash scripts/release.sh`.",
        True,
    ),
    (
        "env-prefixed rspec moved",
        APP,
        (("mv", "spec/system/checkout_spec.rb", "spec/features/checkout_spec.rb"),),
        "`HEADLESS=0 bundle exec rspec spec/system/checkout_spec.rb` shows the browser.",
        True,
    ),
    (
        "moved though a namesake lives elsewhere",
        APP,
        (("mv", "tests/test_api.py", "tests/unit/test_api.py"),),
        "`pytest tests/test_api.py` is quick.",
        True,
    ),
    (
        "fenced bin script deleted",
        APP,
        (("rm", "bin/setup"),),
        "```bash\nbin/setup   # gems, databases\n```",
        True,
    ),
    # Not stale: still there, or never meant to exist.
    ("unchanged", APP, (), "Run `pytest -q tests/test_cart.py` before touching the cart.", False),
    ("mkdir", APP, (), "Make the folder with `mkdir -p build/out`.", False),
    ("new branch", APP, (), "Start with `git checkout -b feature/new-flow`.", False),
    ("junit report", APP, (), "CI runs `pytest --junitxml=reports/junit.xml tests/`.", False),
    ("build outdir", APP, (), "Build with `python -m build --outdir dist/`.", False),
    ("cd into a subproject", APP, (), "`cd services/api && pytest tests/test_orders.py`.", False),
    (
        "relative to a subproject",
        APP,
        (),
        "In services/api, run `pytest tests/test_orders.py`.",
        False,
    ),
    ("cp creates", APP, (), "`cp .env.example .env` and fill it in.", False),
    ("touch creates", APP, (), "`touch src/new_module.py` then register it.", False),
    (
        "python example",
        APP,
        (),
        "Read it like this:\n\n```python\nwith open('data/missing.csv') as f:\n    rows = f\n```",
        False,
    ),
    ("curl", APP, (), "```\n$ curl https://api.example.com/v1/orders\n```", False),
    ("docker volume", APP, (), "`docker run -v /data:/data shop:latest`.", False),
    ("npm install", APP, (), "`npm install lodash` is allowed.", False),
    ("pytest -k", APP, (), '`pytest -k "cart and not slow"` for a quick run.', False),
    ("eslint glob", APP, (), "`eslint --fix 'src/**/*.ts'` before committing.", False),
    ("rm build output", APP, (), "`rm -rf node_modules/` when installs act up.", False),
    ("go run unchanged", APP, (), "`go run ./cmd/gateway` starts it.", False),
    ("export", APP, (), "`export DATABASE_URL=postgres://localhost/shop` first.", False),
    ("manage.py unchanged", APP, (), "Migrate with `python manage.py migrate`.", False),
    ("runtime log", APP, (), "Watch `tail -f log/development.log` while testing.", False),
    ("tests folder", APP, (), "`pytest tests/` runs everything.", False),
    ("black dot", APP, (), "`black --check .` must pass.", False),
    ("python -c", APP, (), '`python -c "import shop; print(shop.__file__)"`.', False),
    ("output file", APP, (), "`ruff check src/ --output-file ruff.txt` for the report.", False),
    ("terraform chdir", APP, (), "`terraform -chdir=infra/prod plan` first.", False),
    ("built server", APP, (), "`node --inspect dist/server.js` to debug.", False),
    ("dotted test label", APP, (), "`python manage.py test shop.tests.test_cart`.", False),
    (
        "moved elsewhere, cited elsewhere",
        APP,
        (("mv", "tests/test_api.py", "tests/x.py"),),
        "`pytest tests/test_cart.py` is the cart.",
        False,
    ),
    # Added after the checker was written, not tuned on (the misses are known gaps).
    (
        "chained after make",
        APP,
        (("rm", "tests/test_cart.py"),),
        "`make test && pytest tests/test_cart.py`.",
        True,
    ),
    ("yarn binary", APP, (("rm", "src/cart.test.ts"),), "`yarn jest src/cart.test.ts`.", True),
    (
        "pnpm exec",
        APP,
        (("rm", "src/cart.test.ts"),),
        "`pnpm exec vitest run src/cart.test.ts`.",
        True,
    ),
    (
        "python3 -m pytest moved",
        APP,
        (("mv", "tests/test_cart.py", "tests/unit/test_cart.py"),),
        "`python3 -m pytest tests/test_cart.py -x`.",
        True,
    ),
    (
        "subproject test moved",
        APP,
        (("mv", "services/api/tests/test_orders.py", "services/api/tests/unit/test_orders.py"),),
        "In services/api, run `pytest tests/test_orders.py`.",
        True,
    ),
    ("virtualenv", APP, (), "`source .venv/bin/activate` first.", False),
    ("artisan", APP, (), "`php artisan migrate` after pulling.", False),
    ("gradle wrapper", (*APP, "gradlew"), (), "`./gradlew test` runs the JVM tests.", False),
    ("compose without a file", APP, (), "`docker compose up -d` starts the stack.", False),
]
