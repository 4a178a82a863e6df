"""Verifying webhook requests as Standard Webhooks defines them (the TypeScript client's
verifyWebhook, in the standard library)."""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Any, Iterable, Mapping, Optional, Protocol, Tuple, Union, cast

from .errors import WebhookVerificationError
from .types import WebhookEvent

#: How far a webhook's timestamp may be from now, in seconds (Standard Webhooks' default).
WEBHOOK_TOLERANCE_SECONDS = 5 * 60

HeaderValue = Union[str, Iterable[str], None]


class HeaderItems(Protocol):
    """Anything with ``items()`` of (name, value): http.client.HTTPMessage, most frameworks' headers."""

    def items(self) -> Iterable[Tuple[str, Any]]: ...


Headers = Union[Mapping[str, HeaderValue], HeaderItems, Iterable[Tuple[str, str]]]


def verify_webhook(
    body: Union[str, bytes],
    headers: Headers,
    secret: str,
    now: Optional[float] = None,
) -> WebhookEvent:
    """Verifies a webhook request and returns its event.

    The ``webhook-signature`` header must hold a ``v1,`` HMAC-SHA256 (base64) of
    ``{webhook-id}.{webhook-timestamp}.{body}`` keyed with the base64-decoded secret (after
    ``whsec_``); several space-separated signatures are accepted (secret rotation), any one
    matching is enough. The timestamp must be within 5 minutes of ``now`` (seconds since the
    epoch; default the current time). Pass the raw body exactly as received (bytes or str).
    ``headers`` may be any mapping (a dict, ``http.client.HTTPMessage``, a framework's headers)
    or a list of pairs; names are matched case-insensitively. Raises WebhookVerificationError.
    """
    webhook_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not webhook_id or not timestamp or not signatures:
        raise WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature.")
    try:
        seconds = int(timestamp.strip())
    except ValueError:
        raise WebhookVerificationError("webhook-timestamp is not a number of seconds.") from None
    current = time.time() if now is None else now
    if abs(current - seconds) > WEBHOOK_TOLERANCE_SECONDS:
        raise WebhookVerificationError(
            "webhook-timestamp is more than 5 minutes from now (a replay, or a wrong clock)."
        )
    try:
        key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret, validate=True)
    except (binascii.Error, ValueError):
        raise WebhookVerificationError("The secret is not whsec_ followed by base64.") from None
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    signed = f"{webhook_id}.{timestamp}.".encode("utf-8") + raw
    expected = hmac.new(key, signed, hashlib.sha256).digest()
    for candidate in signatures.split(" "):
        version, _, signature = candidate.partition(",")
        if version != "v1" or not signature:
            continue
        try:
            given = base64.b64decode(signature, validate=True)
        except (binascii.Error, ValueError):
            continue
        # Constant time: the comparison must not tell an attacker how many bytes matched.
        if hmac.compare_digest(given, expected):
            return cast(WebhookEvent, json.loads(raw.decode("utf-8")))
    raise WebhookVerificationError("No webhook-signature matches this body and secret.")


def _header(headers: Headers, name: str) -> Optional[str]:
    # Mappings and http.client.HTTPMessage (not a Mapping, but it has items()); else pairs.
    pairs = headers.items() if hasattr(headers, "items") else headers  # type: ignore[union-attr]
    for key, value in cast(Iterable[Tuple[str, HeaderValue]], pairs):
        if key.lower() != name:
            continue
        if value is None or isinstance(value, str):
            return value
        return next(iter(value), None)  # a list of values: the first, as the TS client does
    return None
