"""The API's resources as it returns them (snake_case names, ISO 8601 UTC timestamps), as
TypedDicts: the client returns the JSON objects themselves, so ``task["status"]`` is all there is
to learn. They mirror docs/openapi.json's schemas (a test compares the field names); fields a
status may lack (``video_url``, ``error``, ``completed_at``...) are optional."""
from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

TaskStatus = Literal["processing", "completed", "failed"]
KeyMode = Literal["live", "test"]


class TaskError(TypedDict):
    """Why a task failed."""

    message: str
    code: str


class _OutputDestinationRequired(TypedDict):
    url: str


class OutputDestination(_OutputDestinationRequired, total=False):
    """Where an output is PUT once stored: an https presigned PUT URL (S3, R2, GCS) or an Azure
    SAS URL, with at most 10 extra headers (docs/storage.md)."""

    headers: Dict[str, str]


class OutputDelivery(TypedDict):
    """The PUT of the output to ``output_destination``: ``pending``, ``delivered`` or ``failed``."""

    status: str
    attempts: int
    last_error: Optional[str]
    delivered_at: Optional[str]


class _VideoTaskRequired(TypedDict):
    video_id: str
    status: TaskStatus
    model: str
    generation_type: str
    prompt: str
    end_image_url: Optional[str]
    aspect_ratio: str
    duration: int
    resolution: str
    seed: Optional[int]
    negative_prompt: Optional[str]
    end_user: Optional[str]
    metadata: Dict[str, str]
    credits_used: int
    credits_refunded: int
    progress: int
    livemode: bool
    thumbnail_url: Optional[str]
    created_at: str
    updated_at: str
    output_deleted_at: Optional[str]
    expires_at: Optional[str]
    delivery: Optional[OutputDelivery]


class VideoTask(_VideoTaskRequired, total=False):
    """A video task. ``video_url`` and ``completed_at`` come with ``completed``; ``error`` and
    ``completed_at`` with ``failed``; ``image_url`` with ``image_to_video``. ``thumbnail_url`` (the
    first frame, a JPEG) is None until the task completes; ``seed``, ``negative_prompt`` and
    ``end_image_url`` are None when the start gave none, ``end_user`` too (``metadata`` is ``{}``).
    While processing, ``queue_position`` (tasks ahead; 0 once running) and
    ``estimated_completion_at`` are present, None when unknown."""

    image_url: str
    video_url: str
    error: TaskError
    completed_at: str
    queue_position: Optional[int]
    estimated_completion_at: Optional[str]


class _ImageTaskRequired(TypedDict):
    image_id: str
    status: TaskStatus
    model: str
    prompt: str
    resolution: str
    aspect_ratio: str
    output_format: str
    seed: Optional[int]
    negative_prompt: Optional[str]
    end_user: Optional[str]
    metadata: Dict[str, str]
    credits_used: int
    credits_refunded: int
    progress: int
    livemode: bool
    created_at: str
    updated_at: str
    output_deleted_at: Optional[str]
    expires_at: Optional[str]
    delivery: Optional[OutputDelivery]


class ImageTask(_ImageTaskRequired, total=False):
    """An image task; ``image_urls`` when completed, ``error`` when failed; ``queue_position`` and
    ``estimated_completion_at`` while processing."""

    images: List[str]
    image_urls: List[str]
    error: TaskError
    completed_at: str
    queue_position: Optional[int]
    estimated_completion_at: Optional[str]


class Pagination(TypedDict):
    page: int
    limit: int
    total: int
    total_pages: int
    has_more: bool


class VideoPage(TypedDict):
    videos: List[VideoTask]
    pagination: Pagination


class ImagePage(TypedDict):
    images: List[ImageTask]
    pagination: Pagination


class UploadedImage(TypedDict):
    """POST /upload and POST /uploads/{id}/complete: pass ``url`` as ``image_url`` or in ``images``."""

    url: str
    content_type: str
    size: int


class DirectUpload(TypedDict):
    """POST /uploads: a presigned form for uploading straight to storage."""

    upload_id: str
    upload_url: str
    fields: Dict[str, str]
    max_bytes: int
    expires_at: str


class Credits(TypedDict):
    credits: int
    paid_access: bool
    subscription_status: str


class CreditTransaction(TypedDict):
    """One movement of the balance: a grant, a task's charge or a failed task's refund."""

    transaction_id: str
    type: str
    amount: int
    task_id: Optional[str]
    reason: Optional[str]
    created_at: str


class TransactionPage(TypedDict):
    transactions: List[CreditTransaction]
    pagination: Pagination


class UsageRow(TypedDict):
    """One group of a usage report: a day, a model, an API key id or an end user (None: no key, or no end user)."""

    group: Optional[str]
    tasks: int
    credits_charged: int
    credits_refunded: int
    credits_net: int


class UsageTotals(TypedDict):
    tasks: int
    credits_charged: int
    credits_refunded: int
    credits_net: int


#: GET /usage: the range (UTC days, both included), the grouping, its rows and their totals.
#: Written as a call since ``from`` is a Python keyword.
UsageReport = TypedDict(
    "UsageReport",
    {"from": str, "to": str, "group_by": str, "rows": List[UsageRow], "totals": UsageTotals},
)


class Webhook(TypedDict):
    """A webhook endpoint as listed (the secret is shown only when it is created)."""

    webhook_id: str
    url: str
    events: List[str]
    description: Optional[str]
    created_at: str


class CreatedWebhook(Webhook):
    """POST /webhooks' answer: the endpoint and its signing secret (``whsec_…``), shown this once."""

    secret: str


class WebhookList(TypedDict):
    webhooks: List[Webhook]


class DeletedWebhook(TypedDict):
    webhook_id: str
    deleted: bool


class WebhookTestEvent(TypedDict):
    event_id: str


class Delivery(TypedDict):
    """One delivery of an event to an endpoint."""

    event_id: str
    type: str
    status: str
    attempts: int
    last_status_code: Optional[int]
    last_error: Optional[str]
    last_attempt_at: Optional[str]
    next_attempt_at: Optional[str]


class DeliveryPage(TypedDict):
    deliveries: List[Delivery]
    pagination: Pagination


class WebhookEvent(TypedDict):
    """The body of every event a webhook endpoint receives. ``data`` is the task as GET
    /videos/{id} or /images/{id} returns it, or ``{"webhook_id": …}`` for ``webhook.test``."""

    id: str
    type: str
    created_at: str
    livemode: bool
    data: Dict[str, Any]


class _GenerateVideoRequired(TypedDict):
    prompt: str


class GenerateVideoParams(_GenerateVideoRequired, total=False):
    """Body of POST /generate. Only ``prompt`` is required; the API applies the documented
    defaults and checks the rest (``image_url`` with ``image_to_video``, and only with it)."""

    model: str
    generation_type: str
    image_url: str
    end_image_url: str
    aspect_ratio: str
    duration: int
    resolution: str
    seed: int
    negative_prompt: str
    end_user: str
    metadata: Dict[str, str]
    output_destination: OutputDestination
    thumbnail_destination: OutputDestination
    keep_output: bool


class _GenerateImageRequired(TypedDict):
    prompt: str


class GenerateImageParams(_GenerateImageRequired, total=False):
    """Body of POST /generate-image. Needs paid access and an active subscription."""

    model: str
    resolution: str
    aspect_ratio: str
    output_format: str
    images: List[str]
    seed: int
    negative_prompt: str
    end_user: str
    metadata: Dict[str, str]
    output_destination: OutputDestination
    keep_output: bool


class _CreateWebhookRequired(TypedDict):
    url: str


class CreateWebhookParams(_CreateWebhookRequired, total=False):
    """Body of POST /webhooks: ``events`` defaults to every task event."""

    events: List[str]
    description: str


class DeliveryRetried(TypedDict):
    """POST /webhooks/{id}/deliveries/{event_id}/retry: the attempt is queued."""

    event_id: str
    status: Literal["pending"]


class TaskEvent(TypedDict):
    """A task's ending as GET /events lists it: the same object its webhooks carry. ``data`` is
    the task as GET /videos/{id} or /images/{id} returned it when it ended."""

    id: str
    type: str
    created_at: str
    livemode: bool
    data: Dict[str, Any]


class EventPage(TypedDict):
    """GET /events: endings oldest first; pass ``next_after`` as ``after`` to read on."""

    events: List[TaskEvent]
    has_more: bool
    next_after: str


class ModelCapabilities(TypedDict):
    """Which optional parameters a model honours."""

    image_to_video: bool
    end_image: bool
    seed: bool
    negative_prompt: bool
    reference_images: bool


class ModelPricing(TypedDict):
    """A task's price is units (seconds of video, or images) × ``credits_per_unit``, rounded up."""

    unit: str
    credits_per_unit: float
    rounding: str


class VideoModelDefaults(TypedDict):
    generation_type: str
    aspect_ratio: str
    resolution: str
    duration: int


class DurationRange(TypedDict):
    min: int
    max: int


class VideoModelParameters(TypedDict):
    """The values a video model accepts."""

    aspect_ratio: List[str]
    resolution: List[str]
    duration: DurationRange


class VideoModelEntry(TypedDict):
    """A video model of GET /models (``kind: "video"``)."""

    id: str
    kind: Literal["video"]
    name: str
    subscription_required: bool
    capabilities: ModelCapabilities
    pricing: ModelPricing
    defaults: VideoModelDefaults
    parameters: VideoModelParameters


class ImageModelDefaults(TypedDict):
    aspect_ratio: str
    resolution: str
    output_format: str


class ImageModelParameters(TypedDict):
    """The values an image model accepts."""

    aspect_ratio: List[str]
    resolution: List[str]
    output_format: List[str]


class ImageModelEntry(TypedDict):
    """An image model of GET /models (``kind: "image"``)."""

    id: str
    kind: Literal["image"]
    name: str
    subscription_required: bool
    capabilities: ModelCapabilities
    pricing: ModelPricing
    defaults: ImageModelDefaults
    parameters: ImageModelParameters


class ModelList(TypedDict):
    """GET /models: every model with its price, defaults, allowed values and capabilities; videos first."""

    models: List[Union[VideoModelEntry, ImageModelEntry]]


class _VideoQuoteRequired(_GenerateVideoRequired):
    kind: Literal["video"]


class VideoQuoteParams(_VideoQuoteRequired, total=False):
    """Body of POST /quote for a video: ``kind: "video"`` and generate_video's parameters."""

    model: str
    generation_type: str
    image_url: str
    end_image_url: str
    aspect_ratio: str
    duration: int
    resolution: str
    seed: int
    negative_prompt: str
    end_user: str
    metadata: Dict[str, str]
    output_destination: OutputDestination
    thumbnail_destination: OutputDestination
    keep_output: bool


class _ImageQuoteRequired(_GenerateImageRequired):
    kind: Literal["image"]


class ImageQuoteParams(_ImageQuoteRequired, total=False):
    """Body of POST /quote for an image: ``kind: "image"`` and generate_image's parameters."""

    model: str
    resolution: str
    aspect_ratio: str
    output_format: str
    images: List[str]
    seed: int
    negative_prompt: str
    end_user: str
    metadata: Dict[str, str]
    output_destination: OutputDestination
    keep_output: bool


#: Body of POST /quote: ``kind`` and the parameters of the start it prices.
QuoteParams = Union[VideoQuoteParams, ImageQuoteParams]


class Quote(TypedDict):
    """POST /quote: the price, the balance, and whether the start would be accepted now
    (``reason``: the 403 code it would get, None when ``can_start``)."""

    kind: str
    model: str
    credits: int
    balance: int
    can_start: bool
    reason: Optional[str]


class Balance(TypedDict):
    credits: int


class Account(TypedDict):
    """GET /account: the account behind the key or session, both balances, and (for a session)
    the holder's email."""

    account_id: str
    email: Optional[str]
    created_at: str
    live: Balance
    test: Balance
    paid_access: bool
    subscription_status: str
    output_retention_days: Optional[int]


class UpdateAccountParams(TypedDict):
    """Body of PATCH /account (a session of an owner or admin): days to keep outputs, 1 to 3650,
    or None to keep them for good."""

    output_retention_days: Optional[int]


class ApiKey(TypedDict):
    """An API key as GET /keys lists it (never the key itself after its creation)."""

    key_id: str
    name: str
    mode: KeyMode
    prefix: Optional[str]
    scopes: List[str]
    expires_at: Optional[str]
    monthly_spend_limit: Optional[int]
    end_user_monthly_spend_limit: Optional[int]
    spent_this_month: int
    last_used_at: Optional[str]
    created_at: str
    created_by: Optional[str]
    revoked_at: Optional[str]


class AuditActor(TypedDict):
    """Who made a change: a holder (with its email then), an API key, ``operator``, or Stripe (its event id)."""

    type: Literal["holder", "key", "operator", "stripe"]
    id: str
    email: Optional[str]


class AuditTarget(TypedDict):
    """What a change was made to (a key, a webhook, the account, a checkout...)."""

    type: str
    id: str


class AuditEvent(TypedDict):
    """An entry of the account's audit log (GET /audit-events)."""

    id: str
    at: str
    actor: AuditActor
    action: str
    target: AuditTarget
    ip: Optional[str]
    user_agent: Optional[str]
    details: Dict[str, Any]


class AuditEventPage(TypedDict):
    """GET /audit-events: newest first; pass ``next_after`` as ``after`` for the next, older page (None at the end)."""

    events: List[AuditEvent]
    has_more: bool
    next_after: Optional[str]


Role = Literal["owner", "admin", "developer", "billing", "viewer"]


class AccountMembership(TypedDict):
    """One account you belong to (GET /accounts): pass ``account_id`` as ``account=`` to act on it."""

    account_id: str
    role: Role


class AccountList(TypedDict):
    """GET /accounts: every account you belong to, the default first."""

    accounts: List[AccountMembership]


class Member(TypedDict):
    """A member of the account (GET /account/members)."""

    holder_id: str
    email: str
    role: Role
    joined_at: str


class Invitation(TypedDict):
    """An open invitation to the account."""

    invitation_id: str
    email: str
    role: Role
    invited_by: str
    created_at: str
    expires_at: str


class MemberList(TypedDict):
    """GET /account/members: the members, earliest joined first, and open invitations."""

    members: List[Member]
    invitations: List[Invitation]


class MemberRemoved(TypedDict):
    """DELETE /account/members/{holder_id}."""

    holder_id: str
    removed: bool


class UpdateMemberParams(TypedDict):
    """PATCH /account/members/{holder_id}."""

    role: Role


class InviteMemberParams(TypedDict):
    """POST /account/members: the address to invite and the role it gets."""

    email: str
    role: Role


class InvitationRevoked(TypedDict):
    """DELETE /account/members/invitations/{invitation_id}."""

    invitation_id: str
    revoked: bool


class ReceivedInvitation(Invitation):
    """An open invitation to your verified address (GET /invitations), with the account it is for."""

    account_id: str


class ReceivedInvitationList(TypedDict):
    """GET /invitations: the open invitations to your verified address, newest first."""

    invitations: List[ReceivedInvitation]


class CreatedApiKey(ApiKey):
    """POST /keys: the key object plus ``api_key``, the key itself, shown only in this answer."""

    api_key: str


class ApiKeyList(TypedDict):
    keys: List[ApiKey]


class _CreateKeyRequired(TypedDict):
    name: str


class CreateKeyParams(_CreateKeyRequired, total=False):
    """Body of POST /keys: ``mode`` defaults to live, ``scopes`` to all, no expiry, no limit."""

    mode: KeyMode
    scopes: List[str]
    expires_at: str
    monthly_spend_limit: int
    end_user_monthly_spend_limit: int


class UpdateKeyParams(TypedDict, total=False):
    """Body of PATCH /keys/{key_id}; ``monthly_spend_limit: None`` removes the limit."""

    name: str
    scopes: List[str]
    monthly_spend_limit: Optional[int]
    end_user_monthly_spend_limit: Optional[int]


class BillingPack(TypedDict):
    """A credit pack for sale (live mode); ``amount`` in the currency's minor unit."""

    pack_id: str
    credits: int
    amount: int
    currency: str


class BillingPlan(TypedDict):
    """The subscription plan; ``amount`` in the currency's minor unit."""

    amount: int
    currency: str
    interval: str


class SubscriptionPayment(TypedDict):
    """A payment of the subscription (a paid Stripe invoice); ``amount`` in the currency's minor unit."""

    invoice_id: str
    amount: int
    currency: str
    paid_at: str


class Billing(TypedDict):
    """GET /billing: the packs for sale, the plan (None when none is offered), the account's
    subscription and paid access, and the subscription's latest payments (newest first)."""

    packs: List[BillingPack]
    plan: Optional[BillingPlan]
    subscription_status: str
    paid_access: bool
    subscription_payments: List[SubscriptionPayment]


class CheckoutParams(TypedDict, total=False):
    """Body of POST /billing/checkout: ``{"pack_id": …}`` for a pack or ``{"plan": True}`` for the subscription."""

    pack_id: str
    plan: bool


class BillingRedirect(TypedDict):
    """POST /billing/checkout and /billing/portal: where to send the holder (Stripe's page)."""

    url: str
