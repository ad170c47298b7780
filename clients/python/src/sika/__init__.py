"""The Sika payments API from Python (clients/python/README.md).

sika.openapi is generated from the service's OpenAPI document by openapi-python-client
(`make python-client`): an operation per module under sika.openapi.api, its models in
sika.openapi.models. sika.Sika is the hand-written layer over it."""

from standardwebhooks.webhooks import WebhookVerificationError

from ._client import Environment, RetryingTransport, Sika, SikaError, Webhooks
from .openapi._source import OPENAPI_SHA256

__all__ = ["OPENAPI_SHA256", "Environment", "RetryingTransport", "Sika", "SikaError", "WebhookVerificationError", "Webhooks"]
