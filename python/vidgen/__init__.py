"""vidgen: a Python client for the video and image generation API (standard library only).

    from vidgen import VidgenClient
    client = VidgenClient("vg_test_…")              # or VIDGEN_API_KEY; base URL: VIDGEN_BASE_URL
    video = client.generate_video(prompt="a paper boat on a pond", duration=3)
    done = client.wait_for_video(video["video_id"], on_progress=lambda v: print(v["progress"]))

Mirrors the TypeScript client (client/src/index.ts): the same operations, retry rules, waits,
webhook verification and errors.
"""
from ._version import __version__
from .client import (
    AUTO_KEY,
    DEFAULT_BASE_URL,
    DIRECT_UPLOAD_THRESHOLD,
    VidgenClient,
    key_mode,
    read_envelope,
)
from .errors import ApiError, VidgenError, WaitTimeoutError, WebhookVerificationError
from .retry import RetryInfo, RetryOptions, backoff_delay, parse_retry_after
from .webhooks import WEBHOOK_TOLERANCE_SECONDS, verify_webhook

__all__ = [
    "AUTO_KEY",
    "DEFAULT_BASE_URL",
    "DIRECT_UPLOAD_THRESHOLD",
    "WEBHOOK_TOLERANCE_SECONDS",
    "ApiError",
    "RetryInfo",
    "RetryOptions",
    "VidgenClient",
    "VidgenError",
    "WaitTimeoutError",
    "WebhookVerificationError",
    "__version__",
    "backoff_delay",
    "key_mode",
    "parse_retry_after",
    "read_envelope",
    "verify_webhook",
]
