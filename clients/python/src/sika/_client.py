"""The hand-written layer over the generated operations (sika.openapi): the API key and the
environment on every request, an Idempotency-Key on every POST and the same one on its retries,
errors raised as SikaError, lists walked page after page, webhook signatures verified."""

from __future__ import annotations

import binascii
import inspect
import json
import random
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from email.utils import parsedate_to_datetime
from types import ModuleType
from typing import Any, Literal, Self

import httpx
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from .openapi import AuthenticatedClient

Environment = Literal["sandbox", "live"]

MAX_DELAY = 8.0
MAX_RETRY_AFTER = 60.0


class SikaError(Exception):
    """An error answer of the API, or a request that got no answer (`status` 0, `code` None).

    `code` is one of docs/errors.md's; `retryable` says whether the same request may succeed
    later; `errors` lists each refused item of a list the request carried (by `index`)."""

    def __init__(
        self,
        status: int,
        code: str | None,
        message: str,
        *,
        param: str | None = None,
        request_id: str | None = None,
        retryable: bool = False,
        errors: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.param = param
        self.request_id = request_id
        self.retryable = retryable
        self.errors = errors or []

    def __repr__(self) -> str:
        return f"SikaError(status={self.status}, code={self.code!r}, message={self.message!r})"


def _body_of(response: httpx.Response) -> dict[str, Any]:
    try:
        body = json.loads(response.content)
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _is_retryable(response: httpx.Response) -> bool:
    """429, or an error the API marks `retryable` (409 IKW-IDM-003, IKW-RES-003, a 5xx of ours); else any 5xx."""
    if response.status_code == 429:
        return True
    if response.status_code < 400:
        return False
    retryable = _body_of(response).get("retryable")
    return retryable if isinstance(retryable, bool) else response.status_code >= 500


def _retry_after(response: httpx.Response) -> float | None:
    """The delay an answer asks for (Retry-After: seconds or an HTTP date), if any."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def _raise_refusal(response: httpx.Response) -> None:
    """An httpx response hook: an answer of 400 or more, after the retries, as a SikaError."""
    if response.status_code < 400:
        return
    response.read()
    body = _body_of(response)
    retryable = body.get("retryable")
    raise SikaError(
        response.status_code,
        body.get("code"),
        body.get("message") or f"HTTP {response.status_code}",
        param=body.get("param"),
        request_id=body.get("request_id") or response.headers.get("request-id"),
        retryable=retryable if isinstance(retryable, bool) else response.status_code == 429 or response.status_code >= 500,
        errors=body.get("errors"),
    )


class RetryingTransport(httpx.BaseTransport):
    """Sends each request through `inner`, again on no answer, 429 and retryable errors.

    The headers are set once, before the first attempt, so every retry of a POST carries the same
    Idempotency-Key: an answer lost on the way never makes a second payment or payout."""

    def __init__(
        self,
        inner: httpx.BaseTransport,
        environment: str,
        max_retries: int,
        retry_delay: float,
        sleep: Callable[[float], None],
    ) -> None:
        self._inner = inner
        self._environment = environment
        self._max_retries = max_retries
        self._retry_delay = retry_delay
        self._sleep = sleep

    def _backoff(self, attempt: int) -> float:
        return min(self._retry_delay * 2**attempt, MAX_DELAY) * (0.5 + random.random() / 2)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if "x-environment" not in request.headers:
            request.headers["X-Environment"] = self._environment
        if request.method == "POST" and "idempotency-key" not in request.headers:
            request.headers["Idempotency-Key"] = str(uuid.uuid4())
        request.read()  # the body, kept for the retries
        attempt = 0
        while True:
            try:
                response = self._inner.handle_request(request)
            except httpx.TransportError:
                if attempt >= self._max_retries:
                    raise
                self._sleep(self._backoff(attempt))
                attempt += 1
                continue
            if attempt >= self._max_retries or response.status_code < 400:
                return response
            content = response.read()
            response.close()
            answer = httpx.Response(response.status_code, headers=response.headers, content=content, request=request)
            if not _is_retryable(answer):
                return answer
            asked = _retry_after(answer)
            self._sleep(self._backoff(attempt) if asked is None else asked)
            attempt += 1

    def close(self) -> None:
        self._inner.close()


class Webhooks:
    """Verification of the service's webhook deliveries (Standard Webhooks)."""

    @staticmethod
    def verify(payload: str | bytes, headers: Mapping[str, str], secret: str) -> dict[str, Any]:
        """The event, if `payload` (the raw body) was signed with `secret` within 5 minutes;
        raises WebhookVerificationError otherwise."""
        try:
            event = Webhook(secret).verify(payload, {name.lower(): value for name, value in headers.items()})
        except (ValueError, binascii.Error) as err:  # a malformed signature header
            raise WebhookVerificationError(str(err)) from err
        if not isinstance(event, dict):
            raise WebhookVerificationError("not an event")
        return event


class Sika:
    """The Sika API: `call` runs a generated operation (sika.openapi.api.…) and answers its
    parsed answer or raises SikaError; `list` yields every item of a list, page after page;
    `client` is the generated AuthenticatedClient, with the same headers and retries."""

    webhooks = Webhooks()

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = "http://localhost:3000",
        environment: Environment | None = None,
        max_retries: int = 2,
        retry_delay: float = 0.5,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        chosen = environment or ("live" if api_key.startswith("sk_live_") else "sandbox")
        retrying = RetryingTransport(transport or httpx.HTTPTransport(), chosen, max_retries, retry_delay, sleep)
        self.environment: Environment = chosen
        self.client = AuthenticatedClient(
            base_url=base_url.rstrip("/"),
            token=api_key,
            timeout=httpx.Timeout(timeout),
            # A refusal is raised before the generated code parses it: its parsers expect the
            # API's error body and fail on any other (a proxy's 502 page).
            httpx_args={"transport": retrying, "event_hooks": {"response": [_raise_refusal]}},
        )

    def call(self, operation: ModuleType, *args: Any, **kwargs: Any) -> Any:
        """The parsed answer of `operation.sync_detailed(*args, client=…, **kwargs)`; a SikaError for a refusal or no answer.

        `x_environment`, which some operations' signatures require, is this client's unless given.
        The same errors are raised from `self.client`'s calls, but for no answer: httpx's own."""
        if "x_environment" not in kwargs and "x_environment" in inspect.signature(operation.sync_detailed).parameters:
            kwargs["x_environment"] = self.environment
        try:
            response = operation.sync_detailed(*args, client=self.client, **kwargs)
        except httpx.TransportError as err:
            raise SikaError(0, None, f"No answer from the API: {err}", retryable=True) from err
        return response.parsed

    def list(self, operation: ModuleType, *args: Any, **kwargs: Any) -> Iterator[Any]:
        """Every item of a list operation, fetching the next page as the loop reaches it: cursor
        lists (`starting_after` the last item) and page lists (`page` + 1), until `has_more` is false."""
        while True:
            page = self.call(operation, *args, **kwargs)
            yield from page.data
            if not page.has_more or not page.data:
                return
            number = getattr(page, "page", None)
            if isinstance(number, int):
                kwargs["page"] = number + 1
            else:
                kwargs["starting_after"] = page.data[-1].id

    def close(self) -> None:
        self.client.get_httpx_client().close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
