"""The exceptions of the client, mirroring the TypeScript client's ApiError, WaitTimeoutError and
WebhookVerificationError."""
from __future__ import annotations

from typing import Any, Mapping, Optional, Union


class VidgenError(Exception):
    """Base class of everything this package raises on purpose."""


class ApiError(VidgenError):
    """Any failure of a call: an error answer of the API (its ``code`` and message), an answer
    that is not the API's (a proxy's HTML page: ``internal_error``, or ``upstream_error`` for
    502/503/504), or no answer at all (``network_error``, status 0).

    ``code`` is the API's ``error.code`` (open-ended: the API may add codes); ``status`` the HTTP
    status (0 when no answer arrived); ``request_id`` the answer's ``X-Request-Id`` (quote it in
    support requests); ``retry_after`` the seconds the API asked to wait, when it said.
    """

    def __init__(
        self,
        message: str,
        *,
        code: str,
        status: int,
        request_id: Optional[str] = None,
        retry_after: Optional[int] = None,
        from_api: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.request_id = request_id
        self.retry_after = retry_after
        # True when the API itself answered with its error envelope (not a proxy, not silence).
        self.from_api = from_api

    def __repr__(self) -> str:
        return (
            f"ApiError(code={self.code!r}, status={self.status}, request_id={self.request_id!r}, "
            f"message={self.message!r})"
        )


class WaitTimeoutError(VidgenError):
    """wait_for_video / wait_for_image ran out of ``timeout``; the task itself carries on.
    ``last_task`` is the last state seen."""

    def __init__(self, message: str, last_task: Union[Mapping[str, Any], Any]) -> None:
        super().__init__(message)
        self.last_task = last_task


class WebhookVerificationError(VidgenError):
    """Why verify_webhook refused a request."""
