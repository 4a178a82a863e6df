"""What the client sends (credentials, mode, bodies, uploads) and how it waits, against a
scripted local HTTP server."""
from __future__ import annotations

import os
import tempfile
import unittest
from typing import Any, List

from tests.flaky_server import FlakyServer, Reply, envelope, json_body
from vidgen import ApiError, VidgenClient, WaitTimeoutError, key_mode

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


class RequestsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = FlakyServer()
        self.addCleanup(self.server.stop)
        self.slept: List[float] = []
        self.client = VidgenClient("vg_test_abc", base_url=self.server.url + "/api/v1/", sleep=self.slept.append)

    def test_a_key_is_sent_as_bearer_and_its_prefix_sets_the_mode(self) -> None:
        self.server.reply(envelope({"credits": 1000}))
        self.assertEqual(self.client.get_credits(), {"credits": 1000})
        sent = self.server.received[0]
        self.assertEqual((sent.method, sent.path), ("GET", "/api/v1/credits"))
        self.assertEqual(sent.headers["Authorization"], "Bearer vg_test_abc")
        self.assertEqual(sent.headers["Accept"], "application/json")
        self.assertTrue(sent.headers["User-Agent"].startswith("vidgen-python/"))
        self.assertNotIn("Vidgen-Mode", sent.headers)
        self.assertEqual((self.client.mode, key_mode("vg_live_x"), key_mode(" vg_test_x")), ("test", "live", "test"))

    def test_a_session_token_sends_vidgen_mode(self) -> None:
        client = VidgenClient(session_token="eyJ.token", mode="test", base_url=self.server.url)
        self.server.reply(envelope({"credits": 1000}))
        client.get_credits()
        self.assertEqual(self.server.received[0].headers["Authorization"], "Bearer eyJ.token")
        self.assertEqual(self.server.received[0].headers["Vidgen-Mode"], "test")
        with self.assertRaises(ValueError):
            VidgenClient("vg_live_x", mode="test")
        with self.assertRaises(ValueError):
            VidgenClient("vg_live_x", session_token="t")

    def test_the_key_and_base_url_default_to_the_environment(self) -> None:
        saved = {name: os.environ.get(name) for name in ("VIDGEN_API_KEY", "VIDGEN_BASE_URL")}
        self.addCleanup(lambda: [os.environ.pop(n, None) if v is None else os.environ.__setitem__(n, v) for n, v in saved.items()])
        os.environ["VIDGEN_API_KEY"] = "vg_live_env"
        os.environ["VIDGEN_BASE_URL"] = self.server.url
        self.server.reply(envelope({"webhooks": []}))
        VidgenClient().list_webhooks()
        self.assertEqual(self.server.received[0].headers["Authorization"], "Bearer vg_live_env")
        del os.environ["VIDGEN_API_KEY"]
        with self.assertRaises(ValueError):
            VidgenClient()

    def test_ids_are_escaped_and_bodies_are_json(self) -> None:
        self.server.reply(envelope({"webhook_id": "w", "secret": "whsec_x"}), envelope({"webhook_id": "a/b", "deleted": True}))
        self.client.create_webhook("https://example.com/hook", events=["video.completed"])
        self.client.delete_webhook("a/b")
        created, deleted = self.server.received
        self.assertEqual(json_body(created), {"url": "https://example.com/hook", "events": ["video.completed"]})
        self.assertEqual(created.headers["Content-Type"], "application/json")
        self.assertEqual((deleted.method, deleted.path), ("DELETE", "/api/v1/webhooks/a%2Fb"))
        with self.assertRaises(ValueError):
            self.client.get_video("")

    def test_upload_from_bytes_and_from_a_path_is_multipart(self) -> None:
        uploaded = {"url": "http://x/u.png", "content_type": "image/png", "size": len(PNG)}
        self.server.reply(envelope(uploaded, 201), envelope(uploaded, 201))
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "cat.png")
            with open(path, "wb") as file:
                file.write(PNG)
            self.assertEqual(self.client.upload_image(PNG), uploaded)
            self.assertEqual(self.client.upload_image(path), uploaded)
        from_bytes, from_path = self.server.received
        for sent in (from_bytes, from_path):
            self.assertEqual(sent.path, "/api/v1/upload")
            self.assertTrue(sent.headers["Content-Type"].startswith("multipart/form-data; boundary="))
            self.assertIn(PNG, sent.body)
            self.assertNotIn("Idempotency-Key", sent.headers)
        self.assertIn(b'name="image"; filename="image"\r\nContent-Type: application/octet-stream', from_bytes.body)
        self.assertIn(b'name="image"; filename="cat.png"\r\nContent-Type: image/png', from_path.body)

    def test_a_direct_upload_posts_to_storage_without_credentials_then_completes(self) -> None:
        slot = {
            "upload_id": "upl_1",
            "upload_url": self.server.url + "/bucket",
            "fields": {"key": "uploads/upl_1", "policy": "p"},
            "max_bytes": 10,
            "expires_at": "2026-01-01T00:00:00Z",
        }
        uploaded = {"url": "http://x/upl_1.png", "content_type": "image/png", "size": len(PNG)}
        self.server.reply(envelope(slot, 201), Reply(503, "<Error><Code>SlowDown</Code></Error>"), Reply(204, b""), envelope(uploaded))
        self.assertEqual(self.client.upload_image(PNG, via="direct", filename="a.png"), uploaded)
        paths = [r.path for r in self.server.received]
        self.assertEqual(paths, ["/api/v1/uploads", "/bucket", "/bucket", "/api/v1/uploads/upl_1/complete"])
        storage = self.server.received[2]
        self.assertNotIn("Authorization", storage.headers)
        body = storage.body
        self.assertLess(body.index(b'name="policy"'), body.index(b'name="file"; filename="a.png"'))

    def test_storage_refusals_are_api_errors(self) -> None:
        slot = {"upload_id": "upl_1", "upload_url": self.server.url + "/bucket", "fields": {}, "max_bytes": 1, "expires_at": "x"}
        too_large = "<Error><Code>EntityTooLarge</Code><Message>Your proposed upload exceeds the maximum</Message></Error>"
        self.server.reply(envelope(slot, 201), Reply(400, too_large, {"Content-Type": "application/xml"}))
        with self.assertRaises(ApiError) as raised:
            self.client.upload_image(PNG, via="direct")
        self.assertEqual((raised.exception.code, raised.exception.status), ("payload_too_large", 400))
        self.assertIn("EntityTooLarge: Your proposed upload", str(raised.exception))

    def test_wait_polls_with_progress_until_final(self) -> None:
        def task(status: str, progress: int) -> Any:
            return envelope({"image_id": "img_1", "status": status, "progress": progress})

        self.server.reply(task("processing", 10), task("processing", 60), task("completed", 100))
        seen: List[Any] = []
        final = self.client.wait_for_image("img_1", interval=2, on_progress=lambda t: seen.append(t["progress"]))
        self.assertEqual(final["status"], "completed")
        self.assertEqual(seen, [10, 60, 100])
        self.assertEqual(self.slept, [2, 2])

    def test_a_failed_task_is_a_result_and_a_timeout_raises_with_the_last_task(self) -> None:
        self.server.reply(envelope({"video_id": "vid_1", "status": "failed", "error": {"code": "canceled", "message": "m"}}))
        self.assertEqual(self.client.wait_for_video("vid_1")["error"]["code"], "canceled")
        self.server.reply(envelope({"video_id": "vid_1", "status": "processing"}))
        with self.assertRaises(WaitTimeoutError) as raised:
            self.client.wait_for_video("vid_1", timeout=0)
        self.assertEqual(raised.exception.last_task["status"], "processing")


if __name__ == "__main__":
    unittest.main()
