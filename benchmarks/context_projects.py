"""Five kinds of software project for the memory_context benchmark (bench_context.py).

Each kind is a repository a team could have: areas (a folder of source files, each file with
the thing it handles and a few symbols it defines), the topics its people talk about in prose
(what a branch is named after), its tests, migrations, infrastructure and odds and ends. The
memories and situations are written from these by context_world.py; nothing here names a
memory or a label.

Three kinds are for tuning (shop, dashboard, ledger); two are held out (pipeline, mobile) and
are only ever reported in aggregate.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Topic:
    """Something the team knows about an area, in prose: ``slug`` is how a branch about it is
    named; ``file`` (a file name of the area) the file such work usually touches."""

    slug: str
    title: str
    body: str
    file: str | None = None


@dataclass(frozen=True)
class Area:
    """A folder of source files. ``files``: ``name | thing | symbols`` (space-separated)."""

    name: str
    folder: str
    files: tuple[str, ...]
    topics: tuple[Topic, ...] = ()
    module: str | None = None  # the dotted import path of the folder (Python, Kotlin)


@dataclass(frozen=True)
class Kind:
    """One kind of project (see the module docstring)."""

    name: str
    language: str  # python | ts | go | kotlin | sql (a data pipeline: python, sql, yaml)
    areas: tuple[Area, ...]
    hot: tuple[str, ...]  # areas the last commits on the default branch touched
    migrations: str  # the migrations folder
    old_migrations: tuple[str, ...]
    new_migration: tuple[str, ...]  # names a situation may add (one is picked)
    infra: tuple[str, ...]  # infrastructure files: ``path | thing``
    misc: tuple[str, ...]  # other files: README, CI, lock files, docs
    lockfile: str
    people: tuple[str, ...]
    services: tuple[str, ...]
    teams: tuple[str, ...]
    neutral_branches: tuple[str, ...] = field(default=())


# --------------------------------------------------------------------------- shop (tuning)

SHOP = Kind(
    name="shop",
    language="python",
    areas=(
        Area(
            "payments",
            "src/shop/payments",
            (
                "gateway.py | card charges | PaymentGateway.charge PaymentGateway.capture",
                "refunds.py | refunds | issue_refund RefundPolicy.max_days",
                "payouts.py | merchant payouts | schedule_payout PayoutBatch.close",
                "money.py | money amounts | Money.split round_half_even",
                "webhooks.py | payment webhooks | handle_event verify_signature",
                "legacy_gateway.py | the legacy gateway | LegacyClient.post",
                "fraud.py | fraud checks | score_order FraudRule.applies",
                "currency.py | currency conversion | convert fx_rate_for",
            ),
            (
                Topic(
                    "zanzibar-refunds",
                    "Zanzibar refunds settle in TZS and are never partial",
                    "Refunds for Zanzibar merchants go through the local acquirer and settle in "
                    "TZS. The acquirer rejects partial amounts, so a Zanzibar refund is always for "
                    "the whole order; give store credit for the rest. Tell support before this "
                    "flow changes.",
                    "refunds.py",
                ),
                Topic(
                    "chargeback-evidence",
                    "Chargeback evidence is due within seven days",
                    "When a card network opens a chargeback we have seven days to upload evidence: "
                    "receipt, delivery proof, the customer's emails. Miss the deadline and the "
                    "dispute is lost automatically. Finance owns the dispute inbox.",
                    "webhooks.py",
                ),
            ),
            "shop.payments",
        ),
        Area(
            "checkout",
            "src/shop/checkout",
            (
                "cart.py | carts | Cart.add_item Cart.total",
                "flow.py | the checkout flow | CheckoutFlow.advance CheckoutFlow.resume",
                "shipping.py | shipping quotes | quote_shipping ShippingZone.for_address",
                "taxes.py | sales tax | tax_for_line TaxTable.load",
                "coupons.py | coupons | apply_coupon Coupon.is_stackable",
                "gift_cards.py | gift cards | redeem_gift_card GiftCard.expires_at",
                "views.py | checkout pages | checkout_view confirm_view",
                "address.py | address validation | normalise_address",
            ),
            (
                Topic(
                    "coupon-stacking",
                    "Coupons never stack with sale prices",
                    "Marketing decided a coupon never applies on top of a sale price: the customer "
                    "gets whichever is cheaper, and two coupons never combine. The stacking rule "
                    "is checked when the order is placed, not when the code is typed in.",
                    "coupons.py",
                ),
                Topic(
                    "guest-checkout",
                    "Guest carts live for 30 days and merge on login",
                    "A guest's cart hangs off a signed cookie for 30 days. When the guest logs in "
                    "it merges into the account's cart and the newest line wins a conflict.",
                    "cart.py",
                ),
            ),
            "shop.checkout",
        ),
        Area(
            "catalog",
            "src/shop/catalog",
            (
                "products.py | products | Product.publish Product.archive",
                "variants.py | product variants | Variant.rename Variant.sku",
                "pricing.py | price lists | price_for PriceList.active",
                "inventory.py | stock levels | reserve_stock release_stock",
                "images.py | product images | resize_image ImageSet.primary",
                "importer.py | catalog imports | import_csv ImportRow.validate",
                "categories.py | categories | Category.tree move_category",
                "bundles.py | product bundles | Bundle.price",
            ),
            (
                Topic(
                    "preorder-stock",
                    "Pre-orders may reserve stock we do not hold yet",
                    "Pre-order items sell against incoming stock: reservations may exceed what is "
                    "on hand, up to the purchase order's quantity. Never clamp a pre-order "
                    "reservation at zero.",
                    "inventory.py",
                ),
                Topic(
                    "sku-format",
                    "SKUs are uppercase and never reused",
                    "A SKU is uppercase letters, digits and dashes, at most 32 characters, and is "
                    "never reused once its product is archived: the warehouse keys its history on "
                    "it.",
                ),
            ),
            "shop.catalog",
        ),
        Area(
            "search",
            "src/shop/search",
            (
                "indexer.py | the search index | build_index Indexer.reindex",
                "query.py | search queries | parse_query QueryParser.tokens",
                "synonyms.py | search synonyms | load_synonyms",
                "synonyms_old.py | the old synonym lists | OLD_SYNONYMS",
                "ranking.py | search ranking | boost_for RankingProfile.weights",
                "autocomplete.py | autocomplete suggestions | suggest prefix_index",
                "facets.py | search facets | facet_counts",
            ),
            (
                Topic(
                    "typo-tolerance",
                    "Typo tolerance is off for SKUs and words under four letters",
                    "Fuzzy matching turned 'M8' into 'M6' bolts and customers got the wrong parts. "
                    "Typo tolerance now skips anything that looks like a SKU and words shorter "
                    "than four letters.",
                    "query.py",
                ),
            ),
            "shop.search",
        ),
        Area(
            "accounts",
            "src/shop/accounts",
            (
                "auth.py | logins | authenticate issue_token",
                "passwords.py | password resets | reset_password hash_password",
                "profiles.py | customer profiles | Profile.update",
                "sessions.py | sessions | SessionStore.get SessionStore.rotate",
                "permissions.py | staff permissions | has_perm Role.grants",
                "social_login.py | social logins | google_callback apple_callback",
                "gdpr.py | data exports and erasure | export_user_data erase_user",
            ),
            (
                Topic(
                    "gdpr-erasure",
                    "Erasure requests must finish within 30 days",
                    "The law gives us 30 days to erase a customer who asks. Orders are kept for "
                    "tax but anonymised; marketing lists and the analytics warehouse are purged "
                    "too. Legal reviews any change to what is kept.",
                    "gdpr.py",
                ),
                Topic(
                    "magic-link-login",
                    "Magic links expire after 15 minutes and work once",
                    "A login link e-mailed to a customer works once and for 15 minutes. Mail "
                    "scanners open links, so the link lands on a page with a button instead of "
                    "logging in on GET.",
                ),
            ),
            "shop.accounts",
        ),
        Area(
            "orders",
            "src/shop/orders",
            (
                "orders.py | orders | Order.place Order.cancel",
                "fulfilment.py | fulfilment | ship_order split_shipment",
                "returns.py | returns | open_return ReturnLabel.create",
                "invoices.py | invoices | render_invoice next_invoice_number",
                "status.py | order status changes | transition",
                "exports.py | order exports | export_orders",
            ),
            (
                Topic(
                    "invoice-numbering",
                    "Invoice numbers are gapless per country",
                    "Tax offices in several countries require invoice numbers without gaps, per "
                    "country and year. Numbers are taken inside the order's transaction; a "
                    "cancelled order keeps its number and gets a credit note.",
                    "invoices.py",
                ),
                Topic(
                    "split-shipments",
                    "Split shipments charge once, ship twice",
                    "When part of an order is backordered we ship what we have and charge the "
                    "whole order once; the second parcel never triggers a second charge or a "
                    "second confirmation e-mail.",
                    "fulfilment.py",
                ),
            ),
            "shop.orders",
        ),
        Area(
            "notifications",
            "src/shop/notifications",
            (
                "emails.py | order emails | send_order_email",
                "sms.py | SMS messages | send_sms",
                "templates.py | email templates | render_template",
                "preferences.py | notification preferences | Preferences.allows",
                "push.py | push notifications | send_push",
            ),
            (
                Topic(
                    "quiet-hours",
                    "No marketing messages during quiet hours",
                    "Marketing SMS and push messages wait for the customer's morning (08:00 local "
                    "time); order updates are sent at once. Quiet hours follow the delivery "
                    "address's time zone, not the server's.",
                ),
            ),
            "shop.notifications",
        ),
        Area(
            "analytics",
            "src/shop/analytics",
            (
                "events.py | analytics events | track EventSchema.validate",
                "revenue.py | revenue reports | daily_revenue",
                "funnels.py | conversion funnels | funnel_steps",
                "exports.py | analytics exports | export_csv",
                "attribution.py | ad attribution | last_touch",
                "sampling.py | event sampling | sample_rate_for",
            ),
            (
                Topic(
                    "revenue-refunds",
                    "Revenue reports subtract refunds on the refund date",
                    "Finance books a refund on the day it is paid out, not on the order's day, so "
                    "last month's revenue can change. Reports say 'as of' and never rewrite "
                    "closed months.",
                    "revenue.py",
                ),
                Topic(
                    "consent-mode",
                    "Events without consent are counted, never stored",
                    "When a visitor declines tracking we still count the page view in aggregate "
                    "but store no identifier. The consent flag travels with every event.",
                ),
            ),
            "shop.analytics",
        ),
        Area(
            "api",
            "src/shop/api",
            (
                "serializers.py | API serializers | OrderSerializer.to_dict",
                "views.py | API views | orders_endpoint products_endpoint",
                "throttling.py | API throttling | TenantThrottle.allow",
                "versioning.py | API versions | negotiate_version",
                "pagination.py | API pagination | CursorPage.next",
            ),
            (
                Topic(
                    "api-v1-sunset",
                    "API v1 is switched off on 1 March",
                    "Partners were told that API v1 stops answering on 1 March. Until then it "
                    "returns a Sunset header; no new fields are added to v1.",
                    "versioning.py",
                ),
            ),
            "shop.api",
        ),
        Area(
            "core",
            "src/shop/core",
            (
                "settings.py | settings | load_settings",
                "db.py | database connections | get_connection",
                "cache.py | the cache layer | cached invalidate",
                "clock.py | the clock | now_utc",
                "feature_flags.py | feature flags | is_enabled",
                "tasks.py | background tasks | enqueue",
            ),
            (
                Topic(
                    "read-replicas",
                    "Reads after a write go to the primary",
                    "Replica lag reaches several seconds at peak. A request that just wrote must "
                    "read its own data from the primary; only list pages and reports may use the "
                    "replicas.",
                    "db.py",
                ),
            ),
            "shop.core",
        ),
    ),
    hot=("analytics", "search"),
    migrations="migrations",
    old_migrations=(
        "0001_initial.py",
        "0007_add_coupons.py",
        "0012_split_customer_names.py",
        "0018_add_payout_batches.py",
        "0023_index_orders_by_status.py",
        "0031_add_gift_card_expiry.py",
        "0036_backfill_invoice_numbers.py",
        "0041_add_refund_reason.py",
    ),
    new_migration=("0042_add_return_reasons.py", "0042_add_variant_barcode.py"),
    infra=(
        "infra/terraform/main.tf | the network",
        "infra/terraform/rds.tf | the database",
        "infra/terraform/redis.tf | Redis",
        "infra/terraform/cdn.tf | the CDN",
        "infra/k8s/web.yaml | the web deployment",
        "infra/k8s/worker.yaml | the worker deployment",
        "infra/k8s/cron.yaml | the cron jobs",
    ),
    misc=(
        "README.md",
        "Makefile",
        "pyproject.toml",
        "uv.lock",
        "docs/architecture.md",
        "docs/runbook.md",
        ".github/workflows/ci.yml",
        ".github/workflows/deploy.yml",
        "scripts/seed_db.py",
        "scripts/backfill_refunds.py",
    ),
    lockfile="uv.lock",
    people=(
        "Priya Raman",
        "Tom Becker",
        "Ana Souza",
        "Kenji Ito",
        "Lena Novak",
        "Omar Haddad",
        "Chloe Martin",
    ),
    services=("Stripe", "the tax service", "the warehouse API", "Postmark", "Twilio"),
    teams=("the payments team", "the storefront team", "the platform team"),
    neutral_branches=("wip", "tom/patch-3", "SHOP-1432", "tmp-friday", "ana/cleanup"),
)

# --------------------------------------------------------------------------- dashboard (tuning)

DASHBOARD = Kind(
    name="dashboard",
    language="ts",
    areas=(
        Area(
            "billing",
            "apps/web/src/features/billing",
            (
                "PlanPicker.tsx | the plan picker | PlanPicker onSelectPlan",
                "InvoiceTable.tsx | the invoice table | InvoiceTable formatInvoiceRow",
                "usePaymentMethod.ts | saved payment methods | usePaymentMethod",
                "billingSlice.ts | billing state | billingSlice selectPlan",
                "TrialBanner.tsx | the trial banner | TrialBanner daysLeft",
                "seatCount.ts | seat counting | countSeats",
                "prorate.ts | proration | prorateChange",
            ),
            (
                Topic(
                    "annual-proration",
                    "Annual plans prorate by the day, monthly by the cycle",
                    "Switching an annual plan mid-year credits the unused days; a monthly plan "
                    "changes at the next cycle without credit. Sales promised customers this, so "
                    "do not unify the two rules.",
                    "prorate.ts",
                ),
                Topic(
                    "seat-overage",
                    "Seat overage is billed at the next invoice, not at once",
                    "Adding members past the plan's seats never blocks the admin: the extra seats "
                    "appear on the next invoice with a line per seat.",
                ),
            ),
        ),
        Area(
            "charts",
            "apps/web/src/features/charts",
            (
                "LineChart.tsx | line charts | LineChart",
                "Legend.tsx | chart legends | Legend",
                "useSeries.ts | time series data | useSeries",
                "downsample.ts | downsampling | lttb",
                "axisFormat.ts | axis labels | formatTick",
                "tooltip.tsx | chart tooltips | ChartTooltip",
                "colors.ts | chart colours | seriesColor",
            ),
            (
                Topic(
                    "dst-gaps",
                    "Daylight-saving days have 23 or 25 hourly points",
                    "Hourly charts on the days clocks change show 23 or 25 points. Bucketing in "
                    "the viewer's time zone is intended; never pad or drop a bucket to make 24.",
                    "axisFormat.ts",
                ),
                Topic(
                    "downsampling-threshold",
                    "Series over 2,000 points are downsampled in the browser",
                    "Rendering more than about 2,000 points per series froze low-end laptops; we "
                    "downsample with LTTB above that and show a note on the chart.",
                    "downsample.ts",
                ),
            ),
        ),
        Area(
            "auth",
            "apps/web/src/features/auth",
            (
                "LoginForm.tsx | the login form | LoginForm",
                "useSession.ts | the browser session | useSession refreshSession",
                "ssoRedirect.ts | SSO redirects | startSso finishSso",
                "MfaPrompt.tsx | the MFA prompt | MfaPrompt",
                "inviteLink.ts | invitation links | acceptInvite",
            ),
            (
                Topic(
                    "sso-enforced",
                    "Organisations with enforced SSO cannot use passwords",
                    "When an organisation turns on enforced SSO, password login returns a "
                    "redirect to its identity provider, even for admins. Break-glass access goes "
                    "through support.",
                    "ssoRedirect.ts",
                ),
            ),
        ),
        Area(
            "reports",
            "apps/web/src/features/reports",
            (
                "ReportBuilder.tsx | the report builder | ReportBuilder",
                "scheduleReport.ts | scheduled reports | scheduleReport",
                "exportPdf.ts | PDF exports | exportPdf",
                "ReportList.tsx | the report list | ReportList",
                "filters.ts | report filters | parseFilters",
            ),
            (
                Topic(
                    "pdf-fonts",
                    "PDF exports embed the fonts, never link them",
                    "Customers open exported PDFs offline and in archives; linked fonts fell back "
                    "to Times. Exports embed subsets of Inter and Noto for CJK.",
                    "exportPdf.ts",
                ),
                Topic(
                    "report-timezones",
                    "Scheduled reports run in the owner's time zone",
                    "A report scheduled for Monday 9:00 runs at 9:00 where its owner lives, and "
                    "moves with daylight saving.",
                ),
            ),
        ),
        Area(
            "routes",
            "services/api/src/routes",
            (
                "reports.ts | the reports endpoints | listReports createReport",
                "billing.ts | the billing endpoints | changePlan",
                "users.ts | the user endpoints | inviteUser removeUser",
                "webhooks.ts | incoming webhooks | stripeWebhook",
                "health.ts | health checks | healthz",
                "exports.ts | the export endpoints | startExport",
            ),
            (
                Topic(
                    "stripe-webhook-order",
                    "Stripe webhooks arrive out of order",
                    "Stripe does not promise order: invoice.paid can arrive before "
                    "invoice.created. Handlers look the object up again by id and ignore events "
                    "older than what we stored.",
                    "webhooks.ts",
                ),
            ),
        ),
        Area(
            "db",
            "services/api/src/db",
            (
                "client.ts | the Postgres pool | pool query",
                "tenancy.ts | row-level tenancy | withTenant",
                "reportsRepo.ts | report storage | saveReport",
                "usersRepo.ts | user storage | findUserByEmail",
                "auditLog.ts | the audit log | recordAudit",
            ),
            (
                Topic(
                    "tenant-isolation",
                    "Every query runs inside a tenant scope",
                    "Row-level security keys on the tenant id set per transaction. A query "
                    "outside a tenant scope returns nothing rather than everything; admin tools "
                    "use a separate role.",
                    "tenancy.ts",
                ),
            ),
        ),
        Area(
            "jobs",
            "services/api/src/jobs",
            (
                "sendDigest.ts | the weekly digest | sendDigest",
                "syncStripe.ts | the Stripe sync | syncStripe",
                "cleanupExports.ts | export cleanup | cleanupExports",
                "queue.ts | the job queue | enqueueJob",
                "retentionSweep.ts | data retention | sweepExpired",
            ),
            (
                Topic(
                    "digest-unsubscribe",
                    "Digest e-mails need a one-click unsubscribe",
                    "Mail providers now demand a one-click unsubscribe header on bulk mail. The "
                    "weekly digest carries it and honours it within a day.",
                    "sendDigest.ts",
                ),
            ),
        ),
        Area(
            "ui",
            "packages/ui/src",
            (
                "Button.tsx | buttons | Button",
                "Modal.tsx | modals | Modal",
                "DataTable.tsx | data tables | DataTable",
                "theme.ts | the theme | theme",
                "Toast.tsx | toasts | Toast useToast",
                "DatePicker.tsx | the date picker | DatePicker",
            ),
            (
                Topic(
                    "focus-trap",
                    "Modals trap focus and restore it on close",
                    "Keyboard users got lost behind open dialogs. Every modal traps focus, closes "
                    "on Escape and gives focus back to what opened it.",
                    "Modal.tsx",
                ),
            ),
        ),
        Area(
            "client",
            "packages/api-client/src",
            (
                "client.ts | the API client | createClient",
                "retry.ts | request retries | withRetry",
                "types.ts | API types | Report User",
                "errors.ts | API errors | ApiError",
            ),
            (
                Topic(
                    "retry-idempotency",
                    "Only idempotent requests are retried",
                    "The client retries GET, PUT and DELETE on network errors. POST is retried "
                    "only with an Idempotency-Key header, which the server keeps for 24 hours.",
                    "retry.ts",
                ),
            ),
        ),
        Area(
            "alerts",
            "apps/web/src/features/alerts",
            (
                "AlertRuleEditor.tsx | the alert rule editor | AlertRuleEditor",
                "thresholds.ts | alert thresholds | evaluateThreshold",
                "useAlerts.ts | alert data | useAlerts",
                "mute.ts | muting alerts | muteUntil",
            ),
            (
                Topic(
                    "alert-flapping",
                    "Alerts need three breaches in a row before firing",
                    "Single spikes paged people at night. A rule fires after three consecutive "
                    "breaches and resolves after three good points.",
                    "thresholds.ts",
                ),
            ),
        ),
    ),
    hot=("charts", "jobs"),
    migrations="services/api/migrations",
    old_migrations=(
        "20240105_init.sql",
        "20240212_add_reports.sql",
        "20240320_tenant_rls.sql",
        "20240502_add_audit_log.sql",
        "20240611_add_alert_rules.sql",
    ),
    new_migration=("20240903_add_report_schedules.sql", "20240903_add_seat_overage.sql"),
    infra=(
        "deploy/k8s/api.yaml | the API deployment",
        "deploy/k8s/web.yaml | the web deployment",
        "deploy/k8s/ingress.yaml | the ingress",
        "Dockerfile | the container image",
        "docker-compose.yml | the local stack",
    ),
    misc=(
        "README.md",
        "package.json",
        "package-lock.json",
        "tsconfig.json",
        ".github/workflows/ci.yml",
        "docs/architecture.md",
        "apps/web/vite.config.ts",
    ),
    lockfile="package-lock.json",
    people=(
        "Maya Cohen",
        "Luis Ortega",
        "Sofia Rossi",
        "Ben Carter",
        "Aiko Tanaka",
        "Nina Petrova",
        "Jonas Weber",
    ),
    services=("Stripe", "SendGrid", "the identity provider", "S3", "Redis"),
    teams=("the web team", "the API team", "the growth team"),
    neutral_branches=("wip", "luis/patch-1", "DASH-881", "sofia/tidy", "spike"),
)

# --------------------------------------------------------------------------- ledger (tuning)

LEDGER = Kind(
    name="ledger",
    language="go",
    areas=(
        Area(
            "ledger",
            "internal/ledger",
            (
                "postings.go | postings | PostEntry Posting.Reverse",
                "balances.go | account balances | BalanceAt",
                "journal.go | the journal | Journal.Append",
                "close.go | period closing | ClosePeriod",
                "rounding.go | rounding | RoundHalfEven",
                "reconcile.go | reconciliation | Reconcile",
            ),
            (
                Topic(
                    "backdated-postings",
                    "Backdated postings go into the open period only",
                    "Auditors forbid changing a closed period. A posting dated inside a closed "
                    "period is booked on the first day of the open period with the original date "
                    "kept as a reference.",
                    "postings.go",
                ),
                Topic(
                    "period-close-lock",
                    "Closing a period locks every account at once",
                    "A period close takes one advisory lock for the whole ledger, not one per "
                    "account: closing account by account let postings slip in between.",
                ),
            ),
        ),
        Area(
            "accounts",
            "internal/accounts",
            (
                "accounts.go | ledger accounts | OpenAccount Account.Freeze",
                "chart.go | the chart of accounts | LoadChart",
                "limits.go | account limits | CheckLimit",
                "statements.go | account statements | RenderStatement",
                "interest.go | interest accrual | AccrueInterest",
            ),
            (
                Topic(
                    "frozen-accounts",
                    "Frozen accounts still accept reversals",
                    "A frozen account refuses new debits and credits but must accept reversals "
                    "of its own postings, or a fraud case could never be unwound.",
                    "accounts.go",
                ),
            ),
        ),
        Area(
            "fx",
            "internal/fx",
            (
                "rates.go | exchange rates | RateAt",
                "convert.go | currency conversion | Convert",
                "provider.go | the rates provider | FetchRates",
                "revaluation.go | revaluation | Revalue",
            ),
            (
                Topic(
                    "fx-cutoff",
                    "Exchange rates are fixed at 16:00 London time",
                    "The daily rate is the 16:00 London fixing. A posting before the cutoff uses "
                    "the previous day's rate; weekends use Friday's.",
                    "rates.go",
                ),
            ),
        ),
        Area(
            "api",
            "internal/api",
            (
                "handlers.go | the HTTP handlers | PostHandler BalanceHandler",
                "middleware.go | the HTTP middleware | RequireTenant",
                "errors.go | API errors | WriteError",
                "idempotency.go | idempotency keys | Idempotent",
                "pagination.go | pagination | ParseCursor",
            ),
            (
                Topic(
                    "idempotency-window",
                    "Idempotency keys are kept for 48 hours",
                    "Clients retry postings for up to two days after an outage. The same key "
                    "within 48 hours returns the first response, body and status, without "
                    "posting again.",
                    "idempotency.go",
                ),
            ),
        ),
        Area(
            "store",
            "internal/store/postgres",
            (
                "store.go | the Postgres store | New Store.Tx",
                "postings_repo.go | stored postings | InsertPostings",
                "balances_repo.go | stored balances | UpsertBalance",
                "locks.go | advisory locks | LockAccount",
                "outbox.go | the outbox | EnqueueEvent",
            ),
            (
                Topic(
                    "serializable-tx",
                    "Posting transactions run serializable and retry",
                    "Posting runs at SERIALIZABLE isolation; a serialization failure is retried "
                    "up to five times with jitter before the API answers 409.",
                    "store.go",
                ),
            ),
        ),
        Area(
            "events",
            "internal/events",
            (
                "publisher.go | event publishing | Publish",
                "consumer.go | event consumers | Consume",
                "schema.go | event schemas | Validate",
                "dlq.go | the dead-letter queue | Requeue",
            ),
            (
                Topic(
                    "event-ordering",
                    "Consumers must tolerate events out of order",
                    "Kafka keeps order per account key only. A consumer that needs a balance "
                    "must compare the posting sequence, not the arrival order.",
                    "consumer.go",
                ),
            ),
        ),
        Area(
            "money",
            "pkg/money",
            (
                "money.go | money values | Money Money.Add",
                "currency.go | currencies | ParseCurrency MinorUnits",
                "format.go | money formatting | Format",
            ),
            (
                Topic(
                    "zero-decimal-currencies",
                    "JPY and KRW have no minor units",
                    "Amounts are integers in minor units, and JPY, KRW and a few others have no "
                    "minor unit at all: 100 JPY is stored as 100, not 10000.",
                    "currency.go",
                ),
            ),
        ),
        Area(
            "cli",
            "cmd/ledgerctl",
            (
                "main.go | the ledgerctl tool | main",
                "replay.go | journal replay | replayCmd",
                "export.go | ledger exports | exportCmd",
            ),
            (
                Topic(
                    "replay-dry-run",
                    "Journal replays are dry runs unless --apply is given",
                    "ledgerctl replay rebuilds balances from the journal and prints the "
                    "differences; it writes only with --apply, which needs two approvers.",
                    "replay.go",
                ),
            ),
        ),
        Area(
            "reports",
            "internal/reports",
            (
                "trial_balance.go | trial balances | TrialBalance",
                "aging.go | aging reports | Aging",
                "csv.go | CSV reports | WriteCSV",
                "regulatory.go | regulatory reports | RegulatoryReturn",
            ),
            (
                Topic(
                    "regulatory-deadline",
                    "Regulatory returns are due on the 10th",
                    "The central bank wants the monthly return by the 10th. The report job runs "
                    "on the 3rd so finance has a week to check it.",
                    "regulatory.go",
                ),
            ),
        ),
        Area(
            "payments",
            "internal/payments",
            (
                "transfers.go | transfers | Transfer CancelTransfer",
                "sepa.go | SEPA payments | BuildPain001",
                "cutoffs.go | payment cut-off times | NextCutoff",
                "returns.go | returned payments | HandleReturn",
                "fees.go | payment fees | FeeFor",
            ),
            (
                Topic(
                    "sepa-instant-limit",
                    "SEPA Instant payments stop at 100,000 EUR",
                    "The scheme caps an instant transfer at 100,000 EUR. Larger transfers fall "
                    "back to a standard SEPA credit transfer, which settles the next business "
                    "day; the API says which one it used.",
                    "sepa.go",
                ),
            ),
        ),
        Area(
            "auth",
            "internal/auth",
            (
                "tokens.go | service tokens | IssueToken VerifyToken",
                "scopes.go | token scopes | HasScope",
                "mtls.go | mutual TLS | ClientCertPool",
                "audit.go | access auditing | RecordAccess",
            ),
            (
                Topic(
                    "token-rotation",
                    "Service tokens rotate every 24 hours with overlap",
                    "Tokens signed with yesterday's key stay valid for an hour after rotation "
                    "so in-flight requests do not fail. Never shorten the overlap.",
                    "tokens.go",
                ),
            ),
        ),
        Area(
            "scheduler",
            "internal/scheduler",
            (
                "cron.go | scheduled jobs | Every",
                "leases.go | job leases | AcquireLease",
                "calendar.go | business calendars | IsBusinessDay",
            ),
            (
                Topic(
                    "bank-holidays",
                    "Business days follow the TARGET2 calendar",
                    "Settlement dates skip weekends and TARGET2 holidays, not the local public "
                    "holidays of the office. The calendar is updated every December.",
                    "calendar.go",
                ),
            ),
        ),
    ),
    hot=("reports", "events"),
    migrations="db/migrations",
    old_migrations=(
        "000001_init.up.sql",
        "000004_add_postings_index.up.sql",
        "000009_add_outbox.up.sql",
        "000012_add_fx_rates.up.sql",
        "000015_partition_postings.up.sql",
    ),
    new_migration=("000016_add_account_limits.up.sql", "000016_add_statement_runs.up.sql"),
    infra=(
        "deploy/helm/ledger/values.yaml | the Helm values",
        "deploy/helm/ledger/templates/deployment.yaml | the deployment",
        "deploy/terraform/postgres.tf | the Postgres cluster",
        "deploy/terraform/kafka.tf | Kafka",
        "Dockerfile | the container image",
    ),
    misc=(
        "README.md",
        "go.mod",
        "go.sum",
        "Makefile",
        ".github/workflows/ci.yml",
        "docs/accounting-model.md",
        "docs/oncall.md",
    ),
    lockfile="go.sum",
    people=(
        "Ingrid Larsen",
        "Rafael Lima",
        "Hana Kim",
        "Peter Walsh",
        "Fatima Zahra",
        "Dmitri Orlov",
        "Grace Okafor",
    ),
    services=("Kafka", "Postgres", "the rates provider", "the core banking system", "Vault"),
    teams=("the ledger team", "the platform team", "finance engineering"),
    neutral_branches=("wip", "rafael/patch-2", "LED-207", "hana/scratch", "tmp"),
)

# --------------------------------------------------------------------------- pipeline (held out)

PIPELINE = Kind(
    name="pipeline",
    language="sql",
    areas=(
        Area(
            "staging",
            "dbt/models/staging",
            (
                "stg_orders.sql | staged orders | stg_orders",
                "stg_customers.sql | staged customers | stg_customers",
                "stg_payments.sql | staged payments | stg_payments",
                "stg_events.sql | staged web events | stg_events",
                "stg_products.sql | staged products | stg_products",
                "sources.yml | the source definitions | sources",
            ),
            (
                Topic(
                    "late-arriving-events",
                    "Web events arrive up to three days late",
                    "Mobile clients batch events offline, so a day's events keep arriving for "
                    "three days. Incremental models reprocess a three-day window.",
                    "stg_events.sql",
                ),
            ),
        ),
        Area(
            "marts",
            "dbt/models/marts",
            (
                "fct_orders.sql | the orders fact table | fct_orders",
                "dim_customers.sql | the customer dimension | dim_customers",
                "fct_revenue.sql | the revenue fact table | fct_revenue",
                "dim_products.sql | the product dimension | dim_products",
                "fct_sessions.sql | the sessions fact table | fct_sessions",
                "schema.yml | the mart tests | schema",
            ),
            (
                Topic(
                    "customer-merge",
                    "Merged customer ids keep the oldest id",
                    "When two customer records are merged, every fact keeps pointing at the "
                    "oldest id; the newer one becomes an alias in the customer dimension.",
                    "dim_customers.sql",
                ),
                Topic(
                    "net-revenue",
                    "Net revenue excludes tax and shipping",
                    "Finance defines net revenue as item prices after discounts, without tax or "
                    "shipping, in the order's currency converted at the order date's rate.",
                    "fct_revenue.sql",
                ),
            ),
        ),
        Area(
            "dags",
            "dags",
            (
                "daily_revenue.py | the daily revenue DAG | daily_revenue",
                "hourly_events.py | the hourly events DAG | hourly_events",
                "crm_sync.py | the CRM sync DAG | crm_sync",
                "backfill.py | backfills | backfill",
                "dbt_run.py | the dbt run DAG | dbt_run",
            ),
            (
                Topic(
                    "crm-rate-limit",
                    "The CRM sync must stay under 100 calls a second",
                    "The CRM vendor blocks our account for an hour above 100 calls per second. "
                    "The sync batches 200 records per call and sleeps between batches.",
                    "crm_sync.py",
                ),
            ),
        ),
        Area(
            "etl",
            "src/etl",
            (
                "extract_shop.py | shop extraction | extract_orders",
                "load_warehouse.py | warehouse loading | load_table",
                "pii.py | PII hashing | hash_email",
                "schemas.py | extraction schemas | OrderRecord",
                "retries.py | extraction retries | with_backoff",
            ),
            (
                Topic(
                    "pii-hashing",
                    "E-mail addresses are hashed before they reach the warehouse",
                    "Raw e-mail addresses never land in the warehouse. They are lower-cased, "
                    "trimmed and hashed with the yearly salt during extraction.",
                    "pii.py",
                ),
            ),
            "etl",
        ),
        Area(
            "quality",
            "src/quality",
            (
                "checks.py | data quality checks | run_checks",
                "freshness.py | freshness checks | check_freshness",
                "anomalies.py | anomaly detection | detect_anomalies",
                "alerts.py | data alerts | notify_owner",
            ),
            (
                Topic(
                    "freshness-sla",
                    "Marts must be fresh by 07:00 UTC",
                    "Dashboards are read at the morning stand-ups; every mart must be rebuilt "
                    "by 07:00 UTC or the owner is paged.",
                    "freshness.py",
                ),
            ),
            "quality",
        ),
        Area(
            "macros",
            "dbt/macros",
            (
                "currency_convert.sql | currency conversion | currency_convert",
                "surrogate_key.sql | surrogate keys | surrogate_key",
                "incremental_window.sql | incremental windows | incremental_window",
            ),
            (
                Topic(
                    "surrogate-keys",
                    "Surrogate keys hash the natural key with the source name",
                    "Two sources reuse order numbers. Surrogate keys hash the source name with "
                    "the natural key so they never collide.",
                    "surrogate_key.sql",
                ),
            ),
        ),
        Area(
            "intermediate",
            "dbt/models/intermediate",
            (
                "int_order_items.sql | order items joined to products | int_order_items",
                "int_refunds.sql | refunds matched to orders | int_refunds",
                "int_sessions.sql | sessionised events | int_sessions",
                "int_customer_orders.sql | orders per customer | int_customer_orders",
                "int_fx_rates.sql | daily exchange rates | int_fx_rates",
            ),
            (
                Topic(
                    "session-timeout",
                    "A session ends after 30 minutes without events",
                    "Sessions split after 30 minutes of inactivity or at midnight in the "
                    "visitor's time zone, the same rule the web analytics tool uses.",
                    "int_sessions.sql",
                ),
            ),
        ),
        Area(
            "exports",
            "src/exports",
            (
                "finance_export.py | the finance export | export_ledger_lines",
                "partner_feed.py | partner feeds | build_feed",
                "sftp.py | SFTP uploads | upload",
                "formats.py | export formats | to_csv to_parquet",
            ),
            (
                Topic(
                    "finance-export-cutoff",
                    "The finance export closes at 02:00 UTC",
                    "Finance imports the previous day's lines at 03:00. Rows that arrive after "
                    "02:00 go into the next day's file, never into a file already sent.",
                    "finance_export.py",
                ),
            ),
            "exports",
        ),
        Area(
            "ml",
            "src/ml",
            (
                "churn_features.py | churn features | build_features",
                "train_churn.py | churn model training | train",
                "score_customers.py | customer scoring | score",
                "drift.py | feature drift | check_drift",
            ),
            (
                Topic(
                    "churn-label",
                    "Churn means no order for 90 days",
                    "The churn model's label is 'no order in the next 90 days'. Marketing uses "
                    "a 60-day definition in its e-mails; do not mix the two.",
                    "churn_features.py",
                ),
            ),
            "ml",
        ),
        Area(
            "snapshots",
            "dbt/snapshots",
            (
                "customers_snapshot.sql | customer history | customers_snapshot",
                "prices_snapshot.sql | price history | prices_snapshot",
                "subscriptions_snapshot.sql | subscription history | subscriptions_snapshot",
            ),
            (
                Topic(
                    "snapshot-strategy",
                    "Snapshots use the check strategy on chosen columns",
                    "Source systems do not update their timestamps reliably, so snapshots "
                    "compare a list of columns instead of trusting updated_at.",
                    "prices_snapshot.sql",
                ),
            ),
        ),
        Area(
            "seeds",
            "dbt/seeds",
            (
                "country_codes.csv | country codes | country_codes",
                "holiday_calendar.csv | the holiday calendar | holiday_calendar",
                "channel_mapping.csv | marketing channel mapping | channel_mapping",
            ),
            (
                Topic(
                    "channel-mapping",
                    "New UTM sources default to 'other' until mapped",
                    "Marketing adds UTM sources without telling us. Unknown sources land in "
                    "'other' and a weekly check lists them for the channel mapping.",
                    "channel_mapping.csv",
                ),
            ),
        ),
    ),
    hot=("dags", "quality"),
    migrations="warehouse/migrations",
    old_migrations=(
        "V1__init.sql",
        "V4__add_sessions.sql",
        "V7__partition_events.sql",
        "V9__add_revenue_views.sql",
    ),
    new_migration=("V10__add_refunds_table.sql", "V10__cluster_events_by_day.sql"),
    infra=(
        "terraform/warehouse.tf | the warehouse",
        "terraform/airflow.tf | the Airflow environment",
        "terraform/buckets.tf | the raw buckets",
        "terraform/iam.tf | the service accounts",
    ),
    misc=(
        "README.md",
        "dbt/dbt_project.yml",
        "requirements.txt",
        "Makefile",
        ".github/workflows/ci.yml",
        "docs/data-contracts.md",
    ),
    lockfile="requirements.txt",
    people=(
        "Elif Demir",
        "Carlos Mendes",
        "Yuki Sato",
        "Harriet Jones",
        "Samir Patel",
        "Olga Ivanova",
        "Kwame Mensah",
    ),
    services=("BigQuery", "Airflow", "the CRM", "Looker", "the shop database"),
    teams=("the data team", "analytics engineering", "finance"),
    neutral_branches=("wip", "carlos/patch-5", "DATA-311", "yuki/try", "scratch"),
)

# --------------------------------------------------------------------------- mobile (held out)

MOBILE = Kind(
    name="mobile",
    language="kotlin",
    areas=(
        Area(
            "sync",
            "app/src/main/java/com/acme/notes/sync",
            (
                "SyncWorker.kt | background sync | SyncWorker.doWork",
                "ConflictResolver.kt | sync conflicts | ConflictResolver.resolve",
                "DeltaClient.kt | delta downloads | DeltaClient.fetchSince",
                "SyncScheduler.kt | sync scheduling | SyncScheduler.schedule",
            ),
            (
                Topic(
                    "offline-conflicts",
                    "Offline edits win unless the note was deleted",
                    "When a note was edited on two devices offline, the later edit wins and the "
                    "other becomes a conflict copy; an edit never resurrects a note deleted on "
                    "another device.",
                    "ConflictResolver.kt",
                ),
                Topic(
                    "metered-sync",
                    "Attachments sync only on unmetered networks",
                    "Users on mobile data complained about bills. Text syncs everywhere; "
                    "attachments wait for Wi-Fi unless the user opens them.",
                ),
            ),
            "com.acme.notes.sync",
        ),
        Area(
            "editor",
            "app/src/main/java/com/acme/notes/editor",
            (
                "EditorViewModel.kt | the editor state | EditorViewModel.save",
                "MarkdownRenderer.kt | markdown rendering | MarkdownRenderer.render",
                "UndoStack.kt | undo and redo | UndoStack.push",
                "Autosave.kt | autosave | Autosave.schedule",
                "Checklist.kt | checklists | Checklist.toggle",
            ),
            (
                Topic(
                    "autosave-debounce",
                    "Autosave waits 800 ms after the last keystroke",
                    "Saving on every keystroke drained batteries and flooded sync. Autosave "
                    "waits 800 ms of quiet and always saves when the app goes to background.",
                    "Autosave.kt",
                ),
            ),
            "com.acme.notes.editor",
        ),
        Area(
            "storage",
            "app/src/main/java/com/acme/notes/storage",
            (
                "NotesDatabase.kt | the Room database | NotesDatabase",
                "NoteDao.kt | note queries | NoteDao.search",
                "AttachmentStore.kt | attachment files | AttachmentStore.put",
                "Encryption.kt | local encryption | Encryption.keyFor",
            ),
            (
                Topic(
                    "room-migrations",
                    "Every Room schema change ships a tested migration",
                    "Destructive migrations wiped notes for beta users once. Each schema version "
                    "bump comes with a Migration and a MigrationTestHelper test.",
                    "NotesDatabase.kt",
                ),
            ),
            "com.acme.notes.storage",
        ),
        Area(
            "auth",
            "app/src/main/java/com/acme/notes/auth",
            (
                "LoginActivity.kt | the login screen | LoginActivity",
                "TokenStore.kt | stored tokens | TokenStore.refresh",
                "Biometrics.kt | biometric unlock | Biometrics.prompt",
            ),
            (
                Topic(
                    "biometric-fallback",
                    "Biometric unlock always offers the device PIN",
                    "Some devices drop biometric keys after an OS update. The unlock prompt "
                    "always allows the device credential as a fallback.",
                    "Biometrics.kt",
                ),
            ),
            "com.acme.notes.auth",
        ),
        Area(
            "share",
            "app/src/main/java/com/acme/notes/share",
            (
                "ShareSheet.kt | the share sheet | ShareSheet.show",
                "PublicLinks.kt | public note links | PublicLinks.create",
                "ExportPdf.kt | PDF export | ExportPdf.write",
            ),
            (
                Topic(
                    "public-link-expiry",
                    "Public note links expire after 30 days by default",
                    "Shared links to a note default to 30 days; paying users can pick 'never'. "
                    "Revoking a link takes effect at the CDN within a minute.",
                    "PublicLinks.kt",
                ),
            ),
            "com.acme.notes.share",
        ),
        Area(
            "ui",
            "app/src/main/java/com/acme/notes/ui",
            (
                "NoteListScreen.kt | the note list | NoteListScreen",
                "Theme.kt | the app theme | NotesTheme",
                "SearchBar.kt | the search bar | SearchBar",
                "Onboarding.kt | onboarding | OnboardingPager",
            ),
            (
                Topic(
                    "dynamic-type",
                    "Text must scale to 200% without clipping",
                    "Accessibility review: every screen works at 200% font scale; truncate "
                    "titles with an ellipsis, never clip them.",
                    "Theme.kt",
                ),
            ),
            "com.acme.notes.ui",
        ),
        Area(
            "billing",
            "app/src/main/java/com/acme/notes/billing",
            (
                "PlayBilling.kt | Play billing | PlayBilling.launchPurchase",
                "Entitlements.kt | entitlements | Entitlements.refresh",
                "Paywall.kt | the paywall | PaywallScreen",
                "ReceiptValidator.kt | receipt validation | ReceiptValidator.validate",
            ),
            (
                Topic(
                    "grace-period",
                    "Lapsed subscriptions keep Pro for a 7-day grace period",
                    "When a renewal payment fails, Play gives a grace period; we keep Pro "
                    "features for those seven days and show a banner instead of locking notes.",
                    "Entitlements.kt",
                ),
            ),
            "com.acme.notes.billing",
        ),
        Area(
            "notifications",
            "app/src/main/java/com/acme/notes/notifications",
            (
                "Reminders.kt | note reminders | Reminders.schedule",
                "Channels.kt | notification channels | Channels.create",
                "PushHandler.kt | push messages | PushHandler.onMessage",
            ),
            (
                Topic(
                    "exact-alarms",
                    "Reminders need the exact-alarm permission on Android 14",
                    "Android 14 denies exact alarms by default. Without the permission, "
                    "reminders fall back to inexact alarms and the settings screen says so.",
                    "Reminders.kt",
                ),
            ),
            "com.acme.notes.notifications",
        ),
        Area(
            "search",
            "app/src/main/java/com/acme/notes/search",
            (
                "SearchIndex.kt | the local search index | SearchIndex.rebuild",
                "QueryParser.kt | search queries | QueryParser.parse",
                "Highlighter.kt | match highlighting | Highlighter.spans",
            ),
            (
                Topic(
                    "fts-tokenizer",
                    "Search uses the unicode61 tokenizer with diacritics removed",
                    "Users type 'cafe' and expect 'café'. The FTS table strips diacritics; "
                    "changing the tokenizer needs a full index rebuild on every device.",
                    "SearchIndex.kt",
                ),
            ),
            "com.acme.notes.search",
        ),
        Area(
            "widgets",
            "app/src/main/java/com/acme/notes/widgets",
            (
                "NoteWidget.kt | the home-screen widget | NoteWidget.update",
                "WidgetConfig.kt | widget settings | WidgetConfigActivity",
                "QuickCapture.kt | quick capture | QuickCaptureTile",
            ),
            (
                Topic(
                    "widget-refresh",
                    "Widgets refresh at most every 30 minutes",
                    "The launcher throttles widget updates. We push an update after each save "
                    "and otherwise rely on the 30-minute periodic refresh.",
                    "NoteWidget.kt",
                ),
            ),
            "com.acme.notes.widgets",
        ),
        Area(
            "settings",
            "app/src/main/java/com/acme/notes/settings",
            (
                "SettingsScreen.kt | the settings screen | SettingsScreen",
                "Preferences.kt | stored preferences | Preferences.observe",
                "Backup.kt | backups | Backup.export",
                "Diagnostics.kt | diagnostics | Diagnostics.collect",
            ),
            (
                Topic(
                    "backup-encryption",
                    "Backups are encrypted with a key the user keeps",
                    "Exported backups are encrypted with a passphrase the user chooses; we "
                    "cannot recover it. The export screen says so before the first backup.",
                    "Backup.kt",
                ),
            ),
            "com.acme.notes.settings",
        ),
    ),
    hot=("ui", "share"),
    migrations="app/schemas/com.acme.notes.storage.NotesDatabase",
    old_migrations=("1.json", "2.json", "3.json", "4.json"),
    new_migration=("5.json",),
    infra=(
        "fastlane/Fastfile | the release lanes",
        ".github/workflows/release.yml | the release workflow",
        "app/build.gradle.kts | the app build",
        "gradle/libs.versions.toml | the version catalogue",
    ),
    misc=(
        "README.md",
        "settings.gradle.kts",
        "gradle.properties",
        ".github/workflows/ci.yml",
        "docs/release-process.md",
    ),
    lockfile="gradle/libs.versions.toml",
    people=(
        "Sara Lindqvist",
        "Diego Alvarez",
        "Mei Chen",
        "Noah Fischer",
        "Amara Obi",
        "Viktor Horvat",
        "Leila Farouk",
    ),
    services=("Firebase", "the notes API", "Play Store", "the CDN", "Sentry"),
    teams=("the Android team", "the sync team", "the growth team"),
    neutral_branches=("wip", "diego/patch-4", "NOTES-512", "mei/try-this", "temp"),
)

TUNING = (SHOP, DASHBOARD, LEDGER)
HELD_OUT = (PIPELINE, MOBILE)
KINDS = {kind.name: kind for kind in (*TUNING, *HELD_OUT)}
