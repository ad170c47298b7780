"""What the installed Python client does against a real service, one check per run:
`python checks.py <check>` with SIKA_API_KEY and SIKA_API_BASE (and the check's own variables) in
its environment. Each prints one JSON line of what happened on the wire and what the client
answered; test/integration/python-client.test.ts asserts on it.

Faults are injected below the client's retry layer, in the httpx transport it sends through (the
`transport` option): a request sent to the service whose answer is then lost, a request that never
leaves, or an attempt answered in the service's place with a refusal that is hard to provoke on cue
(409 IKW-IDM-003 and 429 with the API's own body, a proxy's 503) while the next one reaches it."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

import httpx
import sika
from sika import Sika, SikaError, WebhookVerificationError
from sika.openapi.api.balance import get_balance
from sika.openapi.api.merchant_payouts import get_merchant_payouts
from sika.openapi.api.payment_intents import get_payment_intents, post_payment_intents
from sika.openapi.api.payouts import get_payouts_by_id, post_payouts
from sika.openapi.models import PostPaymentIntentsBody, PostPayoutsBody

KEY = os.environ.get("SIKA_API_KEY", "")
BASE = os.environ.get("SIKA_API_BASE", "")

Fault = Callable[[int, httpx.Request], "str | httpx.Response | None"]


class Wire(httpx.BaseTransport):
    """The real transport, recording every attempt, with `fault(attempt, request)` injected:
    'no_answer' (never sent), 'drop_answer' (sent, its answer lost) or an answer given instead."""

    def __init__(self, fault: Fault = lambda attempt, request: None) -> None:
        self.real = httpx.HTTPTransport()
        self.fault = fault
        self.sent: list[dict[str, Any]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(
            {
                "method": request.method,
                "url": str(request.url),
                "idempotency_key": request.headers.get("idempotency-key"),
                "environment": request.headers.get("x-environment"),
                "authorization": request.headers.get("authorization"),
            }
        )
        fault = self.fault(len(self.sent), request)
        if fault == "no_answer":
            raise httpx.ConnectError("connection refused (injected)", request=request)
        if isinstance(fault, httpx.Response):
            return fault
        response = self.real.handle_request(request)
        if fault == "drop_answer":
            response.read()
            response.close()
            raise httpx.ReadError("connection reset before the answer (injected)", request=request)
        return response


def client(wire: Wire, **options: Any) -> tuple[Sika, list[float]]:
    waits: list[float] = []
    return Sika(KEY, base_url=BASE, transport=wire, sleep=waits.append, **options), waits


def intent_body(amount: int) -> PostPaymentIntentsBody:
    return PostPaymentIntentsBody(amount=amount, currency="xof", transaction_country="SN")


def payout_body(amount: int) -> PostPayoutsBody:
    return PostPayoutsBody.from_dict(
        {"amount": amount, "currency": "xof", "destination": {"type": "mobile_money", "country": "SN", "operator": "orange_money", "msisdn": "+221771234567"}}
    )


def error_of(call: Callable[[], Any]) -> dict[str, Any]:
    try:
        call()
    except SikaError as err:
        return {
            "type": type(err).__name__,
            "status": err.status,
            "code": err.code,
            "param": err.param,
            "request_id": err.request_id,
            "retryable": err.retryable,
            "errors": err.errors,
            "message": err.message,
        }
    return {"type": None}


def all_intents() -> list[str]:
    return [pi.id for pi in Sika(KEY, base_url=BASE).list(get_payment_intents)]


def lost_answer() -> dict[str, Any]:
    """The first attempt reaches the service and its answer is lost; the retry gets the first one's answer."""
    wire = Wire(lambda attempt, request: "drop_answer" if attempt == 1 else None)
    sika_, waits = client(wire)
    intent = sika_.call(post_payment_intents, body=intent_body(7000))
    return {"sent": wire.sent, "waits": waits, "intent": intent.id, "intents": all_intents()}


def refusals_retried() -> dict[str, Any]:
    """409 IKW-IDM-003, then a proxy's 503, then the service: three attempts of one POST."""
    idm_003 = {
        "code": "IKW-IDM-003",
        "message": "A request with this Idempotency-Key is still being processed",
        "retryable": True,
        "request_id": "req_injected",
    }

    def fault(attempt: int, request: httpx.Request) -> httpx.Response | None:
        if attempt == 1:
            return httpx.Response(409, json=idm_003, headers={"request-id": "req_injected"}, request=request)
        if attempt == 2:  # a load balancer's answer: no error body of the API's
            return httpx.Response(503, text="<html><body>503 Service Unavailable</body></html>", headers={"content-type": "text/html"}, request=request)
        return None

    wire = Wire(fault)
    sika_, waits = client(wire, max_retries=2)
    intent = sika_.call(post_payment_intents, body=intent_body(8000))

    gives_up = Wire(lambda attempt, request: fault(1, request))
    sika_up, waits_up = client(gives_up, max_retries=2)
    exhausted = error_of(lambda: sika_up.call(post_payment_intents, body=intent_body(8001)))
    return {
        "sent": wire.sent,
        "waits": waits,
        "intent": intent.id,
        "intents": all_intents(),
        "exhausted": exhausted,
        "exhausted_sent": gives_up.sent,
        "exhausted_waits": waits_up,
    }


def rate_limited() -> dict[str, Any]:
    """A 429 as the service answers it (IKW-LIM-001, Retry-After: 2), then the service: the wait is Retry-After's."""
    limited = {"code": "IKW-LIM-001", "message": "Too many requests", "retryable": True, "request_id": "req_injected"}
    wire = Wire(lambda attempt, request: httpx.Response(429, json=limited, headers={"retry-after": "2"}, request=request) if attempt == 1 else None)
    sika_, waits = client(wire)
    return {"balance": sika_.call(get_balance).object_, "sent": wire.sent, "waits": waits}


def no_answer() -> dict[str, Any]:
    wire = Wire(lambda attempt, request: "no_answer")
    sika_, waits = client(wire, max_retries=3)
    return {"error": error_of(lambda: sika_.call(get_balance)), "sent": wire.sent, "waits": waits}


def refused() -> dict[str, Any]:
    wire = Wire()
    sika_, waits = client(wire)
    invalid = error_of(lambda: sika_.call(post_payouts, body=payout_body(-5)))
    missing = error_of(lambda: sika_.call(get_payouts_by_id, "po_missing"))
    live = Sika(KEY, base_url=BASE, environment="live", transport=Wire())
    wrong_environment = error_of(lambda: live.call(get_balance))
    return {"invalid": invalid, "missing": missing, "wrong_environment": wrong_environment, "sent": wire.sent, "waits": waits}


def pages() -> dict[str, Any]:
    """The intents and payouts the test made (PAYOUTS), listed two by two."""
    wire = Wire()
    sika_, _ = client(wire)
    cursor = [pi.id for pi in sika_.list(get_payment_intents, limit=2)]
    cursor_sent = list(wire.sent)
    wire.sent.clear()
    paged = [p.id for p in sika_.list(get_merchant_payouts, limit=2)]
    return {"cursor": cursor, "cursor_sent": cursor_sent, "paged": paged, "paged_sent": wire.sent}


def make_payouts() -> dict[str, Any]:
    sika_ = Sika(KEY, base_url=BASE)
    return {"payouts": [sika_.call(post_payouts, body=payout_body(1000)).id for _ in range(int(os.environ["COUNT"]))]}


def webhook() -> dict[str, Any]:
    """DELIVERY: a real delivery's body, headers and secret."""
    delivery = json.loads(os.environ["DELIVERY"])
    body, headers, secret = delivery["body"], delivery["headers"], delivery["secret"]

    def refusal(payload: str, headers: dict[str, str], secret: str) -> str | None:
        try:
            Sika.webhooks.verify(payload, headers, secret)
        except WebhookVerificationError as err:
            return type(err).__name__
        return None

    return {
        "event": Sika.webhooks.verify(body.encode(), headers, secret),
        "changed_body": refusal(body.replace('"amount":3000', '"amount":3001'), headers, secret),
        "other_secret": refusal(body, headers, "whsec_" + "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc="),
        "malformed_signature": refusal(body, {**headers, "webhook-signature": "v1"}, secret),
        "no_signature": refusal(body, {k: v for k, v in headers.items() if k.lower() != "webhook-signature"}, secret),
    }


def source() -> dict[str, Any]:
    return {"openapi_sha256": sika.OPENAPI_SHA256}


def models() -> dict[str, Any]:
    """Which model modules this program has loaded (the imports above use a handful), then any model by name."""
    import sika.openapi.models as all_models

    prefix = "sika.openapi.models."
    loaded = sorted(name[len(prefix) :] for name in sys.modules if name.startswith(prefix))
    listed = sorted(all_models.__all__)
    every = all(isinstance(getattr(all_models, name), type) for name in listed)
    try:
        getattr(all_models, "NoSuchModel")
        unknown = "found"
    except AttributeError as err:
        unknown = str(err)
    return {"loaded_at_start": loaded, "models": len(listed), "every_model_is_a_class": every, "unknown": unknown}


CHECKS: dict[str, Callable[[], dict[str, Any]]] = {
    f.__name__: f for f in (lost_answer, refusals_retried, rate_limited, no_answer, refused, pages, make_payouts, webhook, source, models)
}

if __name__ == "__main__":
    print(json.dumps(CHECKS[sys.argv[1]](), default=str))
