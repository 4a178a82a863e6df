"""The API's resources as it returns them (snake_case names, ISO 8601 UTC timestamps), as
TypedDicts: the client returns the JSON objects themselves, so ``task["status"]`` is all there is
to learn. They mirror docs/openapi.json's schemas (a test compares the field names); fields a
status may lack (``video_url``, ``error``, ``completed_at``...) are optional."""
from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict

TaskStatus = Literal["processing", "completed", "failed"]
KeyMode = Literal["live", "test"]


class TaskError(TypedDict):
    """Why a task failed."""

    message: str
    code: str


class _VideoTaskRequired(TypedDict):
    video_id: str
    status: TaskStatus
    model: str
    generation_type: str
    prompt: str
    aspect_ratio: str
    duration: int
    resolution: str
    credits_used: int
    progress: int
    livemode: bool
    created_at: str
    updated_at: str


class VideoTask(_VideoTaskRequired, total=False):
    """A video task. ``video_url`` and ``completed_at`` come with ``completed``; ``error`` and
    ``completed_at`` with ``failed``; ``image_url`` with ``image_to_video``."""

    image_url: str
    video_url: str
    error: TaskError
    completed_at: str


class _ImageTaskRequired(TypedDict):
    image_id: str
    status: TaskStatus
    model: str
    prompt: str
    resolution: str
    aspect_ratio: str
    output_format: str
    credits_used: int
    progress: int
    livemode: bool
    created_at: str
    updated_at: str


class ImageTask(_ImageTaskRequired, total=False):
    """An image task; ``image_urls`` when completed, ``error`` when failed."""

    images: List[str]
    image_urls: List[str]
    error: TaskError
    completed_at: str


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
    aspect_ratio: str
    duration: int
    resolution: str


class _GenerateImageRequired(TypedDict):
    prompt: str


class GenerateImageParams(_GenerateImageRequired, total=False):
    """Body of POST /generate-image. Needs paid access and an active subscription."""

    model: str
    resolution: str
    aspect_ratio: str
    output_format: str
    images: List[str]


class _CreateWebhookRequired(TypedDict):
    url: str


class CreateWebhookParams(_CreateWebhookRequired, total=False):
    """Body of POST /webhooks: ``events`` defaults to every task event."""

    events: List[str]
    description: str
