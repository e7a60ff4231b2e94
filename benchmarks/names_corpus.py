"""A hand-labelled corpus of code names cited the way people write them, for bench_citations:
each case is a file before and after a change, a memory written against the file before, and
whether the memory is stale after (its name renamed or removed) — in several languages, with
the edits that must not count (reformatting, a definition moved and imported, a decorator, a
library's function the file calls, an inherited method, a setting).

Labelled by hand from what a reviewer would say, not from what the checker does.
"""

from __future__ import annotations

# (label, path, before, after, memory body, stale?)
Case = tuple[str, str, str, str, str, bool]

PY = "src/shop/billing.py"
TS = "web/src/cart.ts"
GO = "internal/pay/gateway.go"
JAVA = "src/main/java/shop/Gateway.java"
RB = "app/models/invoice.rb"
SH = "scripts/deploy.sh"
RS = "src/ledger.rs"

PY_BEFORE = """import requests
from shop.money import format_cents

MAX_RETRIES = 3


class PaymentGateway(BaseModel):
    timeout_s: float = 10.0

    def charge(self, order):
        return requests.post(self.url, json=order)

    def refund(self, order):
        return None


def charge_card(card, amount):
    return format_cents(amount)
"""

TS_BEFORE = """import { formatCents } from "./money";

export const MAX_ITEMS = 50;

export class CartService {
  addItem(item: Item): void {
    this.items.push(item);
  }

  async checkout(total: number): Promise<Receipt> {
    return api.post("/checkout", { total });
  }
}

export function applyDiscount(cart: Cart, code: string): Cart {
  return { ...cart, total: formatCents(cart.total) };
}
"""

GO_BEFORE = """package pay

type Gateway struct {
	client *http.Client
}

func (g *Gateway) Charge(ctx context.Context, amount int) error {
	return g.client.Do(nil)
}

func NewGateway() *Gateway {
	return &Gateway{}
}
"""

JAVA_BEFORE = """package shop;

public class Gateway {
    private static final int MAX_RETRIES = 3;

    public Receipt charge(Order order) {
        return client.send(order);
    }

    public void refundOrder(Order order) {
        client.cancel(order);
    }
}
"""

RB_BEFORE = """class Invoice < ApplicationRecord
  def total_cents
    lines.sum(&:cents)
  end

  def self.overdue_since(date)
    where("due < ?", date)
  end
end
"""

SH_BEFORE = """#!/bin/sh
deploy_app() {
  rsync -a build/ server:/srv/app
}

rollback_release() {
  ssh server 'ln -sfn /srv/previous /srv/app'
}
"""

RS_BEFORE = """pub struct Ledger {
    entries: Vec<Entry>,
}

impl Ledger {
    pub fn post_entry(&mut self, entry: Entry) {
        self.entries.push(entry);
    }
}

pub fn open_ledger() -> Ledger {
    Ledger { entries: vec![] }
}
"""


def _swap(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new)


CASES: list[Case] = [
    # -------------------------------------------------------------- Python
    (
        "py: method renamed",
        PY,
        PY_BEFORE,
        _swap(PY_BEFORE, "def charge(", "def charge_order("),
        f"Use `PaymentGateway.charge` in `{PY}` for retries.",
        True,
    ),
    (
        "py: function removed",
        PY,
        PY_BEFORE,
        PY_BEFORE.split("\n\ndef charge_card", maxsplit=1)[0] + "\n",
        f"`charge_card()` in `{PY}` formats cents.",
        True,
    ),
    (
        "py: class renamed",
        PY,
        PY_BEFORE,
        PY_BEFORE.replace("PaymentGateway", "Gateway"),
        f"`PaymentGateway` (`{PY}`) owns the HTTP client.",
        True,
    ),
    (
        "py: constant renamed",
        PY,
        PY_BEFORE,
        PY_BEFORE.replace("MAX_RETRIES", "RETRY_LIMIT"),
        f"`MAX_RETRIES` in `{PY}` bounds the loop.",
        True,
    ),
    (
        "py: attribute renamed",
        PY,
        PY_BEFORE,
        PY_BEFORE.replace("timeout_s", "timeout_seconds"),
        f"Raise `PaymentGateway.timeout_s` in `{PY}` for slow banks.",
        True,
    ),
    (
        "py: signature wrapped by a formatter",
        PY,
        PY_BEFORE,
        _swap(
            PY_BEFORE,
            "def charge_card(card, amount):",
            "def charge_card(\n    card,\n    amount,\n):",
        ),
        f"`charge_card()` in `{PY}` formats cents.",
        False,
    ),
    (
        "py: decorated and edited",
        PY,
        PY_BEFORE,
        _swap(
            PY_BEFORE,
            "def charge_card(card, amount):\n    return format_cents(amount)",
            "@retry(3)\ndef charge_card(card, amount):\n    log(card)\n    return format_cents(amount)",
        ),
        f"`charge_card()` in `{PY}` formats cents.",
        False,
    ),
    (
        "py: moved to another module and imported",
        PY,
        PY_BEFORE,
        "from shop.cards import charge_card\n"
        + PY_BEFORE.split("\n\ndef charge_card", maxsplit=1)[0]
        + "\n",
        f"`charge_card()` in `{PY}` formats cents.",
        False,
    ),
    (
        "py: a library function the file calls",
        PY,
        PY_BEFORE,
        PY_BEFORE + "\n# more\n",
        f"`{PY}` calls `format_cents()` for every amount.",
        False,
    ),
    (
        "py: the library call dropped (never defined here)",
        PY,
        PY_BEFORE,
        PY_BEFORE.replace("format_cents(amount)", "str(amount)"),
        f"`{PY}` calls `format_cents()` for every amount.",
        False,
    ),
    (
        "py: an inherited method",
        PY,
        PY_BEFORE,
        PY_BEFORE + "\n# more\n",
        f"`PaymentGateway.model_dump` in `{PY}` serialises it.",
        False,
    ),
    (
        "py: a setting named beside the file",
        PY,
        PY_BEFORE,
        PY_BEFORE.replace("3", "5"),
        f"Set `max_retry_count` in brain config; see `{PY}`.",
        False,
    ),
    (
        "py: an environment variable",
        PY,
        PY_BEFORE,
        PY_BEFORE + "\n# more\n",
        f"`{PY}` reads `STRIPE_API_KEY`.",
        False,
    ),
    (
        "py: class method still there, class reformatted",
        PY,
        PY_BEFORE,
        _swap(
            PY_BEFORE,
            "class PaymentGateway(BaseModel):",
            "@dataclass\nclass PaymentGateway(\n    BaseModel\n):",
        ),
        f"Use `PaymentGateway.charge` in `{PY}` for retries.",
        False,
    ),
    (
        "py: Class.method, no file cited, method renamed",
        PY,
        PY_BEFORE,
        _swap(PY_BEFORE, "def refund(", "def refund_order("),
        "Always call `PaymentGateway.refund` after a failed capture.",
        True,
    ),
    (
        "py: Class.method of a library, no file cited",
        PY,
        PY_BEFORE,
        PY_BEFORE + "\n# more\n",
        "Prefer `Path.resolve` and `Decimal.quantize` over string maths.",
        False,
    ),
    # -------------------------------------------------------------- TypeScript
    (
        "ts: method renamed",
        TS,
        TS_BEFORE,
        TS_BEFORE.replace("checkout(", "placeOrder("),
        f"`CartService.checkout` in `{TS}` posts the total.",
        True,
    ),
    (
        "ts: function renamed",
        TS,
        TS_BEFORE,
        TS_BEFORE.replace("applyDiscount", "applyCoupon"),
        f"`applyDiscount()` in `{TS}` never rounds.",
        True,
    ),
    (
        "ts: function became an arrow const",
        TS,
        TS_BEFORE,
        _swap(
            TS_BEFORE,
            "export function applyDiscount(cart: Cart, code: string): Cart {",
            "export const applyDiscount = (cart: Cart, code: string): Cart => {",
        ),
        f"`applyDiscount()` in `{TS}` never rounds.",
        False,
    ),
    (
        "ts: method signature wrapped",
        TS,
        TS_BEFORE,
        _swap(
            TS_BEFORE,
            "async checkout(total: number): Promise<Receipt> {",
            "async checkout(\n    total: number,\n  ): Promise<Receipt> {",
        ),
        f"`CartService.checkout` in `{TS}` posts the total.",
        False,
    ),
    (
        "ts: an imported helper",
        TS,
        TS_BEFORE,
        TS_BEFORE + "\n// more\n",
        f"`{TS}` formats with `formatCents()`.",
        False,
    ),
    (
        "ts: constant renamed",
        TS,
        TS_BEFORE,
        TS_BEFORE.replace("MAX_ITEMS", "ITEM_LIMIT"),
        f"`MAX_ITEMS` in `{TS}` caps the cart.",
        True,
    ),
    # -------------------------------------------------------------- Go
    (
        "go: method renamed",
        GO,
        GO_BEFORE,
        GO_BEFORE.replace(") Charge(", ") Capture("),
        f"`Gateway.Charge` in `{GO}` takes a context.",
        True,
    ),
    (
        "go: constructor still there",
        GO,
        GO_BEFORE,
        GO_BEFORE + "\n// more\n",
        f"Build it with `NewGateway()` (`{GO}`).",
        False,
    ),
    (
        "go: struct renamed",
        GO,
        GO_BEFORE,
        GO_BEFORE.replace("Gateway", "Processor"),
        f"`Gateway.Charge` in `{GO}` takes a context.",
        True,
    ),
    # -------------------------------------------------------------- Java
    (
        "java: method renamed",
        JAVA,
        JAVA_BEFORE,
        JAVA_BEFORE.replace("refundOrder", "cancelOrder"),
        f"`Gateway.refundOrder` in `{JAVA}` is idempotent.",
        True,
    ),
    (
        "java: method wrapped",
        JAVA,
        JAVA_BEFORE,
        _swap(
            JAVA_BEFORE,
            "public Receipt charge(Order order) {",
            "public Receipt charge(\n        Order order) {",
        ),
        f"`Gateway.charge` in `{JAVA}` retries.",
        False,
    ),
    (
        "java: a call in a return is not a definition",
        JAVA,
        JAVA_BEFORE,
        JAVA_BEFORE + "\n// more\n",
        f"`{JAVA}` relies on `sendOrder()` from the client library.",
        False,
    ),
    # -------------------------------------------------------------- Ruby, shell, Rust
    (
        "rb: method renamed",
        RB,
        RB_BEFORE,
        RB_BEFORE.replace("total_cents", "amount_cents"),
        f"`Invoice#total_cents` in `{RB}` sums lines.",
        True,
    ),
    (
        "rb: class method still there",
        RB,
        RB_BEFORE,
        RB_BEFORE + "\n# more\n",
        f"`Invoice.overdue_since` in `{RB}` is a scope.",
        False,
    ),
    (
        "sh: function removed",
        SH,
        SH_BEFORE,
        SH_BEFORE.split("\nrollback_release", maxsplit=1)[0] + "\n",
        f"`rollback_release()` in `{SH}` flips the symlink.",
        True,
    ),
    (
        "sh: function still there",
        SH,
        SH_BEFORE,
        SH_BEFORE.replace("rsync -a", "rsync -az"),
        f"`deploy_app()` in `{SH}` uses rsync.",
        False,
    ),
    (
        "rs: method renamed",
        RS,
        RS_BEFORE,
        RS_BEFORE.replace("post_entry", "append_entry"),
        f"`Ledger::post_entry` in `{RS}` never reorders.",
        True,
    ),
    (
        "rs: function still there",
        RS,
        RS_BEFORE,
        RS_BEFORE + "\n// more\n",
        f"`open_ledger()` in `{RS}` starts empty.",
        False,
    ),
]
