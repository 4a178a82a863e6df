"""VidgenClient: the TypeScript client's operations, retry rules and errors, on urllib.

Every method returns the envelope's ``data`` (a dict typed by vidgen.types) or raises ApiError.
"""
from __future__ import annotations

import http.client
import json
import mimetypes
import os
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from enum import Enum
from typing import IO, Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple, TypeVar, Union, cast

from ._version import __version__
from .errors import ApiError, WaitTimeoutError
from .retry import RetryInfo, RetryOptions, parse_retry_after, retry_delay
from .types import (
    Account,
    AccountList,
    AccountMembership,
    ApiKey,
    ApiKeyList,
    Billing,
    BillingRedirect,
    CheckoutParams,
    CreatedApiKey,
    CreatedWebhook,
    CreateKeyParams,
    Credits,
    DeletedWebhook,
    DeliveryPage,
    DeliveryRetried,
    DirectUpload,
    EventPage,
    AuditEventPage,
    GenerateImageParams,
    GenerateVideoParams,
    OutputDestination,
    ImagePage,
    ImageTask,
    Invitation,
    InvitationRevoked,
    InviteMemberParams,
    KeyMode,
    Member,
    MemberList,
    MemberRemoved,
    ModelList,
    Quote,
    QuoteParams,
    ReceivedInvitationList,
    Role,
    TaskEvent,
    TransactionPage,
    UpdateAccountParams,
    UpdateKeyParams,
    UpdateMemberParams,
    UploadedImage,
    UsageReport,
    VideoPage,
    VideoTask,
    WebhookList,
    WebhookTestEvent,
)

#: The local stack of ``npm start``; ``VIDGEN_BASE_URL`` overrides it.
DEFAULT_BASE_URL = "http://127.0.0.1:3000/api/v1"
#: Files larger than this (bytes) go to storage directly: a Lambda request carries about 4.5 MB.
DIRECT_UPLOAD_THRESHOLD = 4_000_000
DEFAULT_TIMEOUT = 60.0

Task = TypeVar("Task", VideoTask, ImageTask)
#: A file to upload: its bytes, a path, or a binary file object.
FileInput = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", IO[bytes]]


class _Auto(Enum):
    KEY = "auto"


#: The default of ``idempotency_key``: a random key per call, reused across the client's retries.
AUTO_KEY = _Auto.KEY


def key_mode(api_key: str) -> KeyMode:
    """The mode a key works in, from its prefix: ``vg_test_`` keys see test data only."""
    return "test" if api_key.strip().startswith("vg_test_") else "live"


@dataclass
class _Call:
    method: str
    #: Under base_url, with the credentials.
    path: str
    #: Safe to repeat after a 5xx or a network error (a 429 is always retried).
    idempotent: bool
    query: Mapping[str, Optional[Union[int, str]]] = field(default_factory=dict[str, Optional[Union[int, str]]])
    json: Any = None
    form: Optional["_Form"] = None
    headers: Dict[str, str] = field(default_factory=dict[str, str])
    #: Instead of path: an absolute URL outside the API (storage), sent without credentials.
    external_url: Optional[str] = None
    #: Asks for CSV: a 2xx text/csv answer is returned as its text (errors are still envelopes).
    csv: bool = False


@dataclass
class _Form:
    """multipart/form-data: text fields first, then the file (storage reads fields before it)."""

    fields: List[Tuple[str, str]]
    file_field: str
    filename: str
    content_type: str
    content: bytes

    def encode(self) -> Tuple[bytes, str]:
        boundary = f"vidgen-{uuid.uuid4().hex}"
        parts: List[bytes] = []
        for name, value in self.fields:
            parts.append(
                f'--{boundary}\r\nContent-Disposition: form-data; name="{_quote(name)}"\r\n\r\n'.encode("utf-8")
                + value.encode("utf-8")
                + b"\r\n"
            )
        parts.append(
            (
                f"--{boundary}\r\nContent-Disposition: form-data; name=\"{_quote(self.file_field)}\"; "
                f"filename=\"{_quote(self.filename)}\"\r\nContent-Type: {self.content_type}\r\n\r\n"
            ).encode("utf-8")
            + self.content
            + b"\r\n"
        )
        parts.append(f"--{boundary}--\r\n".encode("utf-8"))
        return b"".join(parts), f"multipart/form-data; boundary={boundary}"


@dataclass
class _Answer:
    status: int
    headers: Any  # http.client.HTTPMessage: get() is case-insensitive
    text: str


class VidgenClient:
    """A client of the video and image generation API.

    ``api_key``: ``vg_live_…`` (or ``vg_test_…`` for test mode), sent as ``Authorization: Bearer``;
    default the ``VIDGEN_API_KEY`` variable. Or, instead, ``session_token``: a signed-in account
    holder's access token (or a function that returns a current one, asked before each request,
    so it can be refreshed), with ``mode`` (``live``/``test``, default live, sent as
    ``Vidgen-Mode``) choosing the data it works on; with a key, a ``mode`` other than the key's
    own is refused. ``account`` (a session only; an ``acc_…`` id from ``list_accounts()``, sent as
    ``Vidgen-Account``) picks the account a session acts on, default the holder's default
    account; with a key it is refused, as a key belongs to one account. ``base_url`` ends with /api/v1 (default ``VIDGEN_BASE_URL``, else the
    local stack). ``timeout``: seconds a request may wait for the server without any answer (0 or
    None: no limit). ``sleep`` is used for retry delays and polling (injectable for tests);
    ``on_retry`` is called before each retry, e.g. to log it.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        session_token: Union[str, Callable[[], str], None] = None,
        mode: Optional[KeyMode] = None,
        account: Optional[str] = None,
        retry: Optional[RetryOptions] = None,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        sleep: Callable[[float], None] = time.sleep,
        on_retry: Optional[Callable[[RetryInfo], None]] = None,
    ) -> None:
        if mode not in (None, "live", "test"):
            raise ValueError(f'VidgenClient: mode is "live" or "test"; got {mode!r}.')
        if account is not None and (not isinstance(account, str) or not account.strip()):
            raise ValueError(f'VidgenClient: account is an account id such as "acc_…"; got {account!r}.')
        if account is not None and session_token is None:
            raise ValueError("VidgenClient: an API key acts on its own account; account needs a session (session_token).")
        #: With a session: the account requests act on (``Vidgen-Account``); None, the holder's default.
        self.account: Optional[str] = account.strip() if account is not None else None
        if session_token is not None:
            if api_key is not None:
                raise ValueError("VidgenClient: pass api_key or session_token, not both.")
            if callable(session_token):
                self._credentials: Callable[[], str] = session_token
            else:
                token = session_token.strip()
                if not token:
                    raise ValueError("VidgenClient: session_token is empty.")
                self._credentials = lambda: token
            self.mode: KeyMode = mode or "live"
            self._mode_header: Optional[str] = self.mode
        else:
            key = (api_key if api_key is not None else os.environ.get("VIDGEN_API_KEY", "")).strip()
            if not key:
                raise ValueError("VidgenClient: api_key is required (or set VIDGEN_API_KEY).")
            #: ``test`` with a ``vg_test_`` key: every call works on test data, with test credits.
            self.mode = key_mode(key)
            if mode is not None and mode != self.mode:
                # The API applies a key's own mode whatever the request says.
                raise ValueError(
                    f"VidgenClient: a {self.mode} key always acts in {self.mode} mode; "
                    f'mode "{mode}" needs a {mode} key or a session.'
                )
            self._credentials = lambda: key
            self._mode_header = None
        self.base_url = (base_url or os.environ.get("VIDGEN_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.retry = retry or RetryOptions()
        self.timeout = timeout if timeout else None
        self._sleep = sleep
        self._on_retry = on_retry
        self._opener = urllib.request.build_opener()

    # Videos

    def generate_video(
        self,
        params: Optional[GenerateVideoParams] = None,
        *,
        idempotency_key: Union[str, None, _Auto] = AUTO_KEY,
        end_user: Optional[str] = None,
        metadata: Optional[Dict[str, str]] = None,
        output_destination: Optional[OutputDestination] = None,
        thumbnail_destination: Optional[OutputDestination] = None,
        keep_output: Optional[bool] = None,
        **fields: Any,
    ) -> VideoTask:
        """POST /generate: starts a video task and returns it (status ``processing``).

        Parameters as a dict or as keywords (``prompt=…, duration=5``). ``end_user`` (your own id
        of the user it is for) and ``metadata`` (up to 16 string values) are kept with the task and
        echoed in its views, events and webhooks. ``idempotency_key`` makes
        the start safe to retry: the API answers a repeat under the same key (within 24 h) with the
        first answer and charges once. By default a random key per call, reused across the
        client's own retries; pass your own to make retries across processes safe too, or None to
        send none (then the call is not retried on 5xx or network errors).

        ``output_destination={"url": presigned_put_url, "headers": {...}}`` has the finished video
        PUT to your storage (an S3, R2 or GCS presigned PUT URL, an Azure SAS URL with
        ``{"x-ms-blob-type": "BlockBlob"}``: docs/storage.md), ``thumbnail_destination`` its
        thumbnail; ``keep_output=False`` deletes our copy once delivered. The task's ``delivery``
        tells how it went.
        """
        body = {**(params or {}), **fields, **_attribution(end_user, metadata), **_delivery(output_destination, thumbnail_destination, keep_output)}
        return cast(VideoTask, self._start("/generate", body, idempotency_key))

    def get_video(self, video_id: str) -> VideoTask:
        """GET /videos/{id}."""
        return cast(VideoTask, self._request(_Call("GET", f"/videos/{_id(video_id)}", idempotent=True)))

    def list_videos(self, *, page: Optional[int] = None, limit: Optional[int] = None, end_user: Optional[str] = None) -> VideoPage:
        """GET /videos: the history, newest first (with ``end_user``, only that end user's tasks)."""
        call = _Call("GET", "/videos", idempotent=True, query={"page": page, "limit": limit, "end_user": end_user})
        return cast(VideoPage, self._request(call))

    def cancel_video(self, video_id: str) -> VideoTask:
        """POST /videos/{id}/cancel: a processing task fails as ``canceled`` and is refunded (409
        once it ended). Retried on 429 only: after a 5xx the cancel may have taken effect."""
        return cast(VideoTask, self._request(_Call("POST", f"/videos/{_id(video_id)}/cancel", idempotent=False)))

    def delete_video(self, video_id: str) -> VideoTask:
        """DELETE /videos/{id}: deletes a final task's stored video and thumbnail (irreversible;
        charges unchanged). The task stays, with ``output_deleted_at``; ``video_url`` is gone. A
        repeat answers the same, so it is retried; 409 ``task_not_final`` while processing or
        while still being delivered to its ``output_destination``."""
        return cast(VideoTask, self._request(_Call("DELETE", f"/videos/{_id(video_id)}", idempotent=True)))

    def wait_for_video(
        self,
        video_id: str,
        *,
        interval: float = 5.0,
        timeout: Optional[float] = None,
        on_progress: Optional[Callable[[VideoTask], None]] = None,
    ) -> VideoTask:
        """Polls GET /videos/{id} every ``interval`` seconds until the task is ``completed`` or
        ``failed`` and returns that final task. A failed task is a result, not an exception:
        check ``status`` (and ``error``). ``on_progress`` gets the task after every poll, the final
        one included. Raises ApiError when a poll fails after its retries, WaitTimeoutError after
        ``timeout`` seconds (default: as long as it takes)."""
        return self._wait_for(video_id, self.get_video, interval, timeout, on_progress)

    # Images

    def generate_image(
        self,
        params: Optional[GenerateImageParams] = None,
        *,
        idempotency_key: Union[str, None, _Auto] = AUTO_KEY,
        end_user: Optional[str] = None,
        metadata: Optional[Dict[str, str]] = None,
        output_destination: Optional[OutputDestination] = None,
        keep_output: Optional[bool] = None,
        **fields: Any,
    ) -> ImageTask:
        """POST /generate-image: starts an image task (end_user, metadata, idempotency,
        output_destination and keep_output as generate_video; an image has no thumbnail)."""
        body = {**(params or {}), **fields, **_attribution(end_user, metadata), **_delivery(output_destination, None, keep_output)}
        return cast(ImageTask, self._start("/generate-image", body, idempotency_key))

    def get_image(self, image_id: str) -> ImageTask:
        """GET /images/{id}."""
        return cast(ImageTask, self._request(_Call("GET", f"/images/{_id(image_id)}", idempotent=True)))

    def list_images(self, *, page: Optional[int] = None, limit: Optional[int] = None, end_user: Optional[str] = None) -> ImagePage:
        """GET /images: image tasks, newest first (with ``end_user``, only that end user's)."""
        call = _Call("GET", "/images", idempotent=True, query={"page": page, "limit": limit, "end_user": end_user})
        return cast(ImagePage, self._request(call))

    def cancel_image(self, image_id: str) -> ImageTask:
        """POST /images/{id}/cancel (retried as cancel_video)."""
        return cast(ImageTask, self._request(_Call("POST", f"/images/{_id(image_id)}/cancel", idempotent=False)))

    def delete_image(self, image_id: str) -> ImageTask:
        """DELETE /images/{id}: as delete_video, for an image task's images."""
        return cast(ImageTask, self._request(_Call("DELETE", f"/images/{_id(image_id)}", idempotent=True)))

    def wait_for_image(
        self,
        image_id: str,
        *,
        interval: float = 5.0,
        timeout: Optional[float] = None,
        on_progress: Optional[Callable[[ImageTask], None]] = None,
    ) -> ImageTask:
        """As wait_for_video, with GET /images/{id}."""
        return self._wait_for(image_id, self.get_image, interval, timeout, on_progress)

    # Uploads

    def upload_image(
        self,
        file: FileInput,
        *,
        filename: Optional[str] = None,
        content_type: Optional[str] = None,
        via: str = "auto",
    ) -> UploadedImage:
        """Uploads a JPEG, PNG or WebP image (at most 10 MiB) and returns its public URL, to pass
        as ``image_url`` or in ``images``. ``file``: bytes, a path (str or PathLike) or a binary
        file object. ``via``: ``multipart`` (POST /upload, through the API: up to about 4.5 MB on
        AWS), ``direct`` (a presigned upload straight to storage, then complete), or ``auto``
        (multipart up to 4 MB, direct above). POST /upload is retried on 429 only: after a 5xx
        the file may have been stored, so the caller decides."""
        if via not in ("auto", "multipart", "direct"):
            raise ValueError('via is "auto", "multipart" or "direct".')
        content, default_name = _read_file(file)
        name = filename or default_name or "image"
        guessed = mimetypes.guess_type(name)[0] if name != "image" else None
        form = _Form([], "image", name, content_type or guessed or "application/octet-stream", content)
        if via == "direct" or (via == "auto" and len(content) > DIRECT_UPLOAD_THRESHOLD):
            return self._upload_direct(form)
        return cast(UploadedImage, self._request(_Call("POST", "/upload", idempotent=False, form=form)))

    def create_upload(self) -> DirectUpload:
        """POST /uploads: a presigned form for uploading straight to storage (what upload_image
        does for files over 4 MB). POST ``fields`` and then the file as ``file`` to
        ``upload_url``, then call complete_upload. An unused upload costs nothing: retried."""
        return cast(DirectUpload, self._request(_Call("POST", "/uploads", idempotent=True)))

    def complete_upload(self, upload_id: str) -> UploadedImage:
        """POST /uploads/{id}/complete: checks the stored file's bytes and publishes it."""
        call = _Call("POST", f"/uploads/{_id(upload_id)}/complete", idempotent=False)
        return cast(UploadedImage, self._request(call))

    # Credits

    def get_credits(self) -> Credits:
        """GET /credits (the test balance with a test key)."""
        return cast(Credits, self._request(_Call("GET", "/credits", idempotent=True)))

    def list_transactions(self, *, page: Optional[int] = None, limit: Optional[int] = None) -> TransactionPage:
        """GET /credits/transactions: every grant, charge and refund, newest first."""
        call = _Call("GET", "/credits/transactions", idempotent=True, query={"page": page, "limit": limit})
        return cast(TransactionPage, self._request(call))

    def get_usage(
        self, *, from_date: Optional[str] = None, to_date: Optional[str] = None, group_by: Optional[str] = None
    ) -> UsageReport:
        """GET /usage: what tasks cost from ``from_date`` to ``to_date`` (``YYYY-MM-DD``, UTC, both
        included, at most 366 days; default: this UTC month), one row per ``group_by``: ``day``
        (the default), ``model``, ``key`` or ``end_user``. Its totals agree with the ledger."""
        call = _Call("GET", "/usage", idempotent=True, query={"from": from_date, "to": to_date, "group_by": group_by})
        return cast(UsageReport, self._request(call))

    def get_usage_csv(
        self, *, from_date: Optional[str] = None, to_date: Optional[str] = None, group_by: Optional[str] = None
    ) -> str:
        """GET /usage with ``Accept: text/csv``: the report's rows as the API's own CSV text
        (RFC 4180, CRLF line ends, a header row first)."""
        query = {"from": from_date, "to": to_date, "group_by": group_by}
        return cast(str, self._request(_Call("GET", "/usage", idempotent=True, query=query, csv=True)))

    # Webhooks

    def create_webhook(
        self, url: str, *, events: Optional[List[str]] = None, description: Optional[str] = None
    ) -> CreatedWebhook:
        """POST /webhooks: registers an endpoint; the answer holds its signing secret, shown only
        here. Not retried after a 5xx (the endpoint may exist: list them to see)."""
        body: Dict[str, Any] = {"url": url}
        if events is not None:
            body["events"] = events
        if description is not None:
            body["description"] = description
        return cast(CreatedWebhook, self._request(_Call("POST", "/webhooks", idempotent=False, json=body)))

    def list_webhooks(self) -> WebhookList:
        """GET /webhooks."""
        return cast(WebhookList, self._request(_Call("GET", "/webhooks", idempotent=True)))

    def delete_webhook(self, webhook_id: str) -> DeletedWebhook:
        """DELETE /webhooks/{id}. Retried on 429 only: a repeat of a delete that took effect is a 404."""
        return cast(DeletedWebhook, self._request(_Call("DELETE", f"/webhooks/{_id(webhook_id)}", idempotent=False)))

    def test_webhook(self, webhook_id: str) -> WebhookTestEvent:
        """POST /webhooks/{id}/test: sends a ``webhook.test`` event (not retried after a 5xx)."""
        call = _Call("POST", f"/webhooks/{_id(webhook_id)}/test", idempotent=False)
        return cast(WebhookTestEvent, self._request(call))

    def list_webhook_deliveries(
        self, webhook_id: str, *, page: Optional[int] = None, limit: Optional[int] = None
    ) -> DeliveryPage:
        """GET /webhooks/{id}/deliveries: newest first."""
        path = f"/webhooks/{_id(webhook_id)}/deliveries"
        return cast(DeliveryPage, self._request(_Call("GET", path, idempotent=True, query={"page": page, "limit": limit})))

    def retry_delivery(self, webhook_id: str, event_id: str) -> DeliveryRetried:
        """POST /webhooks/{id}/deliveries/{event_id}/retry: sends the event to that endpoint again
        now, under the same ``webhook-id``. Safe to repeat: while its attempt is due a retry
        changes nothing, so it is retried."""
        path = f"/webhooks/{_id(webhook_id)}/deliveries/{_id(event_id)}/retry"
        return cast(DeliveryRetried, self._request(_Call("POST", path, idempotent=True)))

    # Events

    def list_events(self, *, after: Optional[str] = None, limit: Optional[int] = None) -> EventPage:
        """GET /events: your task endings (this key's mode), oldest first, after the cursor ``after``
        (a page's ``next_after``; from the oldest kept event without it). ``limit``: 1-100."""
        return cast(EventPage, self._request(_Call("GET", "/events", idempotent=True, query={"after": after, "limit": limit})))

    def follow_events(
        self,
        *,
        after: Optional[str] = None,
        interval: float = 5.0,
        limit: Optional[int] = None,
        on_cursor: Optional[Callable[[str], None]] = None,
    ) -> Iterator[TaskEvent]:
        """Follows GET /events: yields each task ending once, oldest first, reading on with each
        page's cursor and polling every ``interval`` seconds once caught up. It never ends by
        itself: stop with ``break`` (or close the generator). ``on_cursor`` is told the cursor after
        each page, so a follower can resume where it stopped (pass it as ``after``). A poll that
        fails after its retries raises ApiError."""
        cursor = after
        while True:
            page = self.list_events(after=cursor, limit=limit)
            for event in page["events"]:
                yield event
            cursor = page["next_after"]
            if on_cursor is not None:
                on_cursor(cursor)
            if not page["has_more"]:
                self._sleep(interval)

    # Models and prices

    def list_models(self) -> ModelList:
        """GET /models: every model with its price, defaults, allowed values and capabilities."""
        return cast(ModelList, self._request(_Call("GET", "/models", idempotent=True)))

    def quote(self, params: Optional[QuoteParams] = None, **fields: Any) -> Quote:
        """POST /quote: what the start the parameters describe (``kind="video"`` with
        generate_video's parameters, ``"image"`` with generate_image's) would charge, and whether
        it would be accepted now (``reason`` names the 403 it would get). Charges nothing, so it is
        retried like a GET."""
        body = {**(params or {}), **fields}
        return cast(Quote, self._request(_Call("POST", "/quote", idempotent=True, json=body)))

    # Account and keys (keys and billing need a session: an API key gets 403 forbidden)

    def get_account(self) -> Account:
        """GET /account: the account behind the key or session, both balances, and (for a
        session) the holder's email."""
        return cast(Account, self._request(_Call("GET", "/account", idempotent=True)))

    def list_audit_events(self, *, after: Optional[str] = None, limit: Optional[int] = None) -> AuditEventPage:
        """GET /audit-events: the account's audit log, newest first (a session of its owner or admin).
        ``after``: a page's ``next_after``, for the next, older page. ``limit``: 1-100."""
        return cast(AuditEventPage, self._request(_Call("GET", "/audit-events", idempotent=True, query={"after": after, "limit": limit})))

    def get_audit_events_csv(self, *, after: Optional[str] = None, limit: Optional[int] = None) -> str:
        """GET /audit-events with ``Accept: text/csv``: the same page as the API's own CSV text
        (RFC 4180, CRLF line ends, a header row first); ``list_audit_events``' ``next_after`` pages on."""
        query = {"after": after, "limit": limit}
        return cast(str, self._request(_Call("GET", "/audit-events", idempotent=True, query=query, csv=True)))

    def update_account(self, *, output_retention_days: Optional[int]) -> Account:
        """PATCH /account (a session of an owner or admin): outputs of tasks completed more than
        ``output_retention_days`` ago are deleted; None keeps them for good. Retried: the same
        setting twice is harmless."""
        body: UpdateAccountParams = {"output_retention_days": output_retention_days}
        return cast(Account, self._request(_Call("PATCH", "/account", idempotent=True, json=body)))

    # Teams (a session only)

    def list_accounts(self) -> AccountList:
        """GET /accounts: every account the holder belongs to, the default first, with their role."""
        return cast(AccountList, self._request(_Call("GET", "/accounts", idempotent=True)))

    def list_members(self) -> MemberList:
        """GET /account/members: the members, earliest joined first, and open invitations (an owner or admin)."""
        return cast(MemberList, self._request(_Call("GET", "/account/members", idempotent=True)))

    def update_member(self, holder_id: str, *, role: Role) -> Member:
        """PATCH /account/members/{holder_id}: the member's new ``role`` (409 ``last_owner`` when no
        owner would remain). The same change twice is harmless: retried."""
        body: UpdateMemberParams = {"role": role}
        return cast(Member, self._request(_Call("PATCH", f"/account/members/{_id(holder_id)}", idempotent=True, json=body)))

    def remove_member(self, holder_id: str) -> MemberRemoved:
        """DELETE /account/members/{holder_id}: removes a member (oneself too; 409 ``last_owner`` for
        the last owner). Not retried after a 5xx: a repeat of a removal that went through answers 404."""
        return cast(MemberRemoved, self._request(_Call("DELETE", f"/account/members/{_id(holder_id)}", idempotent=False)))

    def invite_member(self, email: str, *, role: Role) -> Invitation:
        """POST /account/members: invites ``email`` with ``role`` for 7 days (an owner or admin).
        Inviting the same address again replaces its open invitation (and resends it): retried."""
        body: InviteMemberParams = {"email": email, "role": role}
        return cast(Invitation, self._request(_Call("POST", "/account/members", idempotent=True, json=body)))

    def revoke_invitation(self, invitation_id: str) -> InvitationRevoked:
        """DELETE /account/members/invitations/{invitation_id}: withdraws an open invitation. Not
        retried after a 5xx: a repeat of a revoke that went through answers 404."""
        return cast(InvitationRevoked, self._request(_Call("DELETE", f"/account/members/invitations/{_id(invitation_id)}", idempotent=False)))

    def list_invitations(self) -> ReceivedInvitationList:
        """GET /invitations: the open invitations to the signed-in holder's verified address, newest first."""
        return cast(ReceivedInvitationList, self._request(_Call("GET", "/invitations", idempotent=True)))

    def accept_invitation(self, invitation_id: str) -> AccountMembership:
        """POST /invitations/{invitation_id}/accept: joins the invitation's account (the answer
        names it, with the role). Not retried after a 5xx: a repeat of an accept that went through
        answers 404. Refresh the session token to act on the new account at once."""
        return cast(AccountMembership, self._request(_Call("POST", f"/invitations/{_id(invitation_id)}/accept", idempotent=False)))

    def list_keys(self) -> ApiKeyList:
        """GET /keys: the account's API keys, newest first, revoked ones included (a session only)."""
        return cast(ApiKeyList, self._request(_Call("GET", "/keys", idempotent=True)))

    def create_key(self, params: Optional[CreateKeyParams] = None, **fields: Any) -> CreatedApiKey:
        """POST /keys (``name=…``, and ``mode``, ``scopes``, ``expires_at``,
        ``monthly_spend_limit``, ``end_user_monthly_spend_limit`` as wanted): a new API key; ``api_key`` in the answer is the key
        itself, shown only here. Not retried after a 5xx (the key may exist: list them to see)."""
        body = {**(params or {}), **fields}
        return cast(CreatedApiKey, self._request(_Call("POST", "/keys", idempotent=False, json=body)))

    def update_key(self, key_id: str, params: Optional[UpdateKeyParams] = None, **fields: Any) -> ApiKey:
        """PATCH /keys/{id}: its ``name``, ``scopes``, ``monthly_spend_limit`` or
        ``end_user_monthly_spend_limit`` (None removes a limit). The same change twice is harmless: retried."""
        body = {**(params or {}), **fields}
        return cast(ApiKey, self._request(_Call("PATCH", f"/keys/{_id(key_id)}", idempotent=True, json=body)))

    def revoke_key(self, key_id: str) -> ApiKey:
        """DELETE /keys/{id}: revokes the key; revoking twice answers the same, so it is retried."""
        return cast(ApiKey, self._request(_Call("DELETE", f"/keys/{_id(key_id)}", idempotent=True)))

    # Billing (a session only)

    def get_billing(self) -> Billing:
        """GET /billing: packs, the plan, the subscription status and paid access."""
        return cast(Billing, self._request(_Call("GET", "/billing", idempotent=True)))

    def create_checkout(self, params: Optional[CheckoutParams] = None, **fields: Any) -> BillingRedirect:
        """POST /billing/checkout (``pack_id=…`` for a pack, or ``plan=True``): a Stripe Checkout
        page; send the holder to ``url``. Nothing is charged until the holder pays there, so a
        retry is harmless. Live mode only."""
        body = {**(params or {}), **fields}
        return cast(BillingRedirect, self._request(_Call("POST", "/billing/checkout", idempotent=True, json=body)))

    def create_billing_portal(self) -> BillingRedirect:
        """POST /billing/portal: Stripe's customer portal for the account (card, cancellation, invoices)."""
        return cast(BillingRedirect, self._request(_Call("POST", "/billing/portal", idempotent=True)))

    def add_test_credits(self) -> Credits:
        """POST /billing/test-credits: 1000 more test credits (test mode only). Each call grants,
        so it is not retried after a 5xx."""
        return cast(Credits, self._request(_Call("POST", "/billing/test-credits", idempotent=False)))

    def start_test_subscription(self) -> Credits:
        """POST /billing/test-subscription: test mode gets paid access and an active subscription
        (test mode only; play money). A repeat answers the same: retried."""
        return cast(Credits, self._request(_Call("POST", "/billing/test-subscription", idempotent=True)))

    def end_test_subscription(self) -> Credits:
        """DELETE /billing/test-subscription: test mode is back to the live account's access (test
        mode only). A repeat answers the same: retried."""
        return cast(Credits, self._request(_Call("DELETE", "/billing/test-subscription", idempotent=True)))

    # Plumbing

    def _start(self, path: str, params: Mapping[str, Any], idempotency_key: Union[str, None, _Auto]) -> Any:
        key = str(uuid.uuid4()) if idempotency_key is AUTO_KEY else idempotency_key
        headers = {} if key is None else {"Idempotency-Key": key}
        return self._request(_Call("POST", path, idempotent=key is not None, json=dict(params), headers=headers))

    def _wait_for(
        self,
        task_id: str,
        poll: Callable[[str], Task],
        interval: float,
        timeout: Optional[float],
        on_progress: Optional[Callable[[Task], None]],
    ) -> Task:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            task = poll(task_id)
            if on_progress is not None:
                on_progress(task)
            if task["status"] in ("completed", "failed"):
                return task
            wait = interval
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise WaitTimeoutError(f"{task_id} is still {task['status']} after {timeout} s.", task)
                wait = min(wait, left)
            self._sleep(wait)

    def _upload_direct(self, form: _Form) -> UploadedImage:
        slot = self.create_upload()
        storage_form = _Form(list(slot["fields"].items()), "file", form.filename, form.content_type, form.content)
        # Storing under the same key again is harmless, so the storage POST is retried like a GET.
        self._request(_Call("POST", "", idempotent=True, form=storage_form, external_url=slot["upload_url"]))
        return self.complete_upload(slot["upload_id"])

    def _request(self, call: _Call) -> Any:
        url = self._url(call)
        attempt = 0
        while True:
            try:
                return self._attempt(call, url)
            except ApiError as error:
                delay = retry_delay(
                    error,
                    attempt,
                    idempotent=call.idempotent,
                    has_idempotency_key="Idempotency-Key" in call.headers,
                    options=self.retry,
                )
                if delay is None:
                    raise
                attempt += 1
                if self._on_retry is not None:
                    self._on_retry(RetryInfo(attempt, delay, error, call.method, url))
                self._sleep(delay)

    def _attempt(self, call: _Call, url: str) -> Any:
        # Never send the credentials anywhere but the API.
        headers: Dict[str, str] = {"User-Agent": f"vidgen-python/{__version__}"}
        if call.external_url is None:
            headers["Authorization"] = f"Bearer {self._credentials()}"
            headers["Accept"] = "text/csv" if call.csv else "application/json"
            if self._mode_header is not None:
                headers["Vidgen-Mode"] = self._mode_header
            if self.account is not None:
                headers["Vidgen-Account"] = self.account
        headers.update(call.headers)
        body: Optional[bytes] = None
        if call.json is not None:
            headers["Content-Type"] = "application/json"
            body = json.dumps(call.json).encode("utf-8")
        elif call.form is not None:
            body, headers["Content-Type"] = call.form.encode()
        request = urllib.request.Request(url, data=body, headers=headers, method=call.method)
        what = f"{call.method} {url}"
        answer = self._send(request, what)
        if call.external_url is not None:
            return _read_storage_answer(answer, what)
        if call.csv and 200 <= answer.status < 300 and (answer.headers.get("content-type") or "").startswith("text/csv"):
            return answer.text
        return read_envelope(answer.status, answer.headers, answer.text, what)

    def _send(self, request: urllib.request.Request, what: str) -> _Answer:
        try:
            try:
                with self._opener.open(request, timeout=self.timeout) as response:
                    return _Answer(response.status, response.headers, _decode(response.read()))
            except urllib.error.HTTPError as error:  # urllib raises for every status but 2xx
                return _Answer(error.code, error.headers, _decode(error.read()))
        except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
            reason = getattr(error, "reason", error)
            if isinstance(reason, socket.timeout) or isinstance(error, socket.timeout):
                message = f"No answer from {what} within {self.timeout} s."
            else:
                message = f"Could not reach {what}: {reason}."
            raise ApiError(message, code="network_error", status=0) from error

    def _url(self, call: _Call) -> str:
        if call.external_url is not None:
            return call.external_url
        query = {name: str(value) for name, value in call.query.items() if value is not None}
        search = urllib.parse.urlencode(query)
        return f"{self.base_url}{call.path}{'?' + search if search else ''}"


def read_envelope(status: int, headers: Any, text: str, what: str = "the request") -> Any:
    """Turns an answer into the envelope's data, or raises ApiError. Public for callers that make
    their own requests. ``headers``: anything with a case-insensitive ``get`` (HTTPMessage)."""
    request_id = headers.get("x-request-id")
    retry_after = parse_retry_after(headers.get("retry-after"))
    try:
        body = json.loads(text) if text else None
    except ValueError:
        body = None
    envelope = _envelope(body)
    if envelope is not None:
        data, error = envelope
        if error is None and 200 <= status < 300:
            return data
        if error is not None:
            raise ApiError(
                error["message"],
                code=error["code"],
                status=status,
                request_id=request_id,
                retry_after=retry_after,
                from_api=True,
            )
    content_type = (headers.get("content-type") or "").split(";")[0].strip() or "no content type"
    snippet = " ".join(text.split())[:200]
    raise ApiError(
        f"Unexpected answer to {what}: HTTP {status} ({content_type}) is not the API's JSON envelope; "
        f"a proxy or gateway in between may have answered.{' Body starts: ' + snippet if snippet else ''}",
        code=_code_for_status(status),
        status=status,
        request_id=request_id,
        retry_after=retry_after,
    )


def _read_storage_answer(answer: _Answer, what: str) -> None:
    """Storage's answer to a presigned POST: 2xx (usually 204) is stored; anything else is S3's
    XML error, e.g. EntityTooLarge when the file breaks the signed size limit."""
    if 200 <= answer.status < 300:
        return None

    def tag(name: str) -> Optional[str]:
        found = re.search(f"<{name}>([^<]*)</{name}>", answer.text)
        return found.group(1).strip() if found else None

    s3_code = tag("Code")
    detail = ": ".join(part for part in (s3_code, tag("Message")) if part) or " ".join(answer.text.split())[:200]
    if answer.status == 413 or s3_code == "EntityTooLarge":
        code = "payload_too_large"
    elif answer.status == 429:
        code = "rate_limit_exceeded"
    elif answer.status >= 500:
        code = "upstream_error"
    else:
        code = "validation_error"
    raise ApiError(
        f"Storage refused the upload ({what}: HTTP {answer.status}{', ' + detail if detail else ''}).",
        code=code,
        status=answer.status,
        request_id=answer.headers.get("x-amz-request-id"),
        retry_after=parse_retry_after(answer.headers.get("retry-after")),
    )


def _code_for_status(status: int) -> str:
    """The code given to an answer that is not the API's envelope."""
    if status == 429:
        return "rate_limit_exceeded"
    if status in (502, 503, 504):
        return "upstream_error"
    return "internal_error"


def _envelope(body: Any) -> Optional[Tuple[Any, Optional[Dict[str, str]]]]:
    """``(data, error)`` when the body is the API's envelope ``{ data, error: null | { message, code } }``."""
    if not isinstance(body, dict) or "data" not in body or "error" not in body:
        return None
    fields = cast(Dict[str, Any], body)
    error: Any = fields["error"]
    if error is None:
        return fields["data"], None
    if isinstance(error, dict):
        parts = cast(Dict[str, Any], error)
        message, code = parts.get("message"), parts.get("code")
        if isinstance(message, str) and isinstance(code, str):
            return fields["data"], {"message": message, "code": code}
    return None


def _read_file(file: FileInput) -> Tuple[bytes, Optional[str]]:
    """The bytes to upload and, for a path or a named file object, its file name."""
    if isinstance(file, (bytes, bytearray, memoryview)):
        return bytes(file), None
    if isinstance(file, (str, os.PathLike)):
        with open(file, "rb") as opened:
            return opened.read(), os.path.basename(os.fspath(file))
    name = getattr(file, "name", None)
    return file.read(), os.path.basename(name) if isinstance(name, str) else None


def _attribution(end_user: Optional[str], metadata: Optional[Dict[str, str]]) -> Dict[str, Any]:
    """end_user and metadata as a start's body takes them: each only when given."""
    return {
        **({"end_user": end_user} if end_user is not None else {}),
        **({"metadata": metadata} if metadata is not None else {}),
    }


def _delivery(output: Optional[OutputDestination], thumbnail: Optional[OutputDestination], keep_output: Optional[bool]) -> Dict[str, Any]:
    """The delivery fields as a start's body takes them: each only when given."""
    return {
        **({"output_destination": output} if output is not None else {}),
        **({"thumbnail_destination": thumbnail} if thumbnail is not None else {}),
        **({"keep_output": keep_output} if keep_output is not None else {}),
    }


def _id(value: str) -> str:
    if not value:
        raise ValueError("An id is required.")
    return urllib.parse.quote(value, safe="")


def _quote(value: str) -> str:
    """A multipart header parameter: no quote or line break may end it early."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\r", " ").replace("\n", " ")


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")
