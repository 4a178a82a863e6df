"""Every method of the client once, against the real local stack over HTTP with a test key.

Needs VIDGEN_TEST_BASE_URL, VIDGEN_TEST_API_KEY (a ``vg_test_`` key of an account with paid
access and an active subscription) and VIDGEN_TEST_SESSION_TOKEN (a signed-in holder's access
token, for the keys and billing, which take a session only): test/e2e/python-sdk.test.ts starts
the stack, makes the key and the session and runs these tests (``npm test``)."""
from __future__ import annotations

import os
import struct
import tempfile
import threading
import unittest
import urllib.error
import urllib.request
import uuid
import zlib
import http.client
import socket
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Tuple
from urllib.parse import urlsplit

from vidgen import ApiError, VidgenClient, verify_webhook

BASE_URL = os.environ.get("VIDGEN_TEST_BASE_URL", "")
API_KEY = os.environ.get("VIDGEN_TEST_API_KEY", "")
SESSION_TOKEN = os.environ.get("VIDGEN_TEST_SESSION_TOKEN", "")
#: The simulated provider's delay is a few seconds: polling often shows the progress in between.
POLL = 0.2
WAIT = 45.0


def setUpModule() -> None:
    if not BASE_URL or not API_KEY or not SESSION_TOKEN:
        raise RuntimeError(
            "These tests need the local stack: set VIDGEN_TEST_BASE_URL, VIDGEN_TEST_API_KEY and "
            "VIDGEN_TEST_SESSION_TOKEN (npx jest test/e2e/python-sdk.test.ts does), or run "
            "python/tests/unit alone."
        )


def client() -> VidgenClient:
    return VidgenClient(API_KEY, base_url=BASE_URL)


def session(mode: str = "live") -> VidgenClient:
    return VidgenClient(session_token=SESSION_TOKEN, mode=mode, base_url=BASE_URL)  # type: ignore[arg-type]


def png(width: int = 8, height: int = 8, rgb: Tuple[int, int, int] = (0, 136, 255)) -> bytes:
    """A real PNG from the standard library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


class VideosTest(unittest.TestCase):
    def test_generate_wait_with_progress_get_and_list(self) -> None:
        api = client()
        self.assertEqual(api.mode, "test")
        started = api.generate_video(prompt="a paper boat on a pond", duration=3, resolution="480p", seed=7, negative_prompt=" blur ")
        self.assertEqual(started["status"], "processing")
        self.assertEqual((started["seed"], started["negative_prompt"], started["end_image_url"]), (7, "blur", None))
        self.assertIsNone(started["thumbnail_url"])
        self.assertTrue(started["video_id"].startswith("vid_"))
        self.assertFalse(started["livemode"])
        seen: List[Tuple[str, int]] = []
        final = api.wait_for_video(
            started["video_id"], interval=POLL, timeout=WAIT, on_progress=lambda v: seen.append((v["status"], v["progress"]))
        )
        self.assertEqual(final["status"], "completed", final)
        self.assertEqual(seen[-1], ("completed", 100))
        self.assertTrue(all(status == "processing" for status, _ in seen[:-1]))
        self.assertEqual([p for _, p in seen], sorted(p for _, p in seen))
        self.assertEqual(download(final["video_url"])[4:8], b"ftyp")
        self.assertEqual(download(final["thumbnail_url"] or "")[:3], b"\xff\xd8\xff")  # a JPEG
        self.assertEqual(api.get_video(started["video_id"]), final)
        listed = api.list_videos(limit=50)
        self.assertIn(started["video_id"], [v["video_id"] for v in listed["videos"]])
        self.assertEqual(listed["pagination"]["limit"], 50)

    def test_cancel_fails_it_as_canceled(self) -> None:
        api = client()
        started = api.generate_video(prompt="never mind", duration=3)
        canceled = api.cancel_video(started["video_id"])
        self.assertEqual((canceled["status"], canceled["error"]["code"]), ("failed", "canceled"))
        with self.assertRaises(ApiError) as again:
            api.cancel_video(started["video_id"])
        self.assertEqual((again.exception.status, again.exception.code), (409, "task_not_cancelable"))

    def test_delete_video_removes_its_outputs_and_keeps_the_task(self) -> None:
        api = client()
        stalled = api.generate_video(prompt="sim:stall a boat", duration=3)
        with self.assertRaises(ApiError) as early:
            api.delete_video(stalled["video_id"])
        self.assertEqual((early.exception.status, early.exception.code), (409, "task_not_final"))
        started = api.generate_video(prompt="a boat to delete", duration=3, resolution="480p")
        final = api.wait_for_video(started["video_id"], interval=POLL, timeout=WAIT)
        deleted = api.delete_video(started["video_id"])
        self.assertEqual((deleted["status"], deleted["thumbnail_url"]), ("completed", None))
        self.assertIsNotNone(deleted["output_deleted_at"])
        self.assertNotIn("video_url", deleted)
        self.assertEqual(api.delete_video(started["video_id"]), deleted)
        with self.assertRaises(urllib.error.HTTPError) as gone:
            download(final["video_url"])
        self.assertEqual(gone.exception.code, 404)

    def test_one_idempotency_key_starts_one_task(self) -> None:
        api = client()
        key = f"py-{uuid.uuid4()}"
        first = api.generate_video({"prompt": "once", "duration": 3}, idempotency_key=key)
        second = api.generate_video({"prompt": "once", "duration": 3}, idempotency_key=key)
        self.assertEqual(first["video_id"], second["video_id"])
        api.cancel_video(first["video_id"])

    def test_errors_carry_code_status_and_request_id(self) -> None:
        api = client()
        with self.assertRaises(ApiError) as missing:
            api.get_video("vid_01ARZ3NDEKTSV4RRFFQ69G5FAV")
        self.assertEqual((missing.exception.status, missing.exception.code), (404, "not_found"))
        self.assertTrue(missing.exception.request_id)
        with self.assertRaises(ApiError) as invalid:
            api.generate_video(prompt="a boat", duration=3, image_url="https://example.com/a.png")
        self.assertEqual((invalid.exception.status, invalid.exception.code), (400, "validation_error"))
        self.assertIn("image_url", str(invalid.exception))
        with self.assertRaises(ApiError) as unauthorized:
            VidgenClient("vg_test_not_a_real_key", base_url=BASE_URL).get_credits()
        self.assertEqual((unauthorized.exception.status, unauthorized.exception.code), (401, "unauthorized"))


class ImagesTest(unittest.TestCase):
    def test_generate_wait_get_list_and_cancel(self) -> None:
        api = client()
        started = api.generate_image(prompt="a lighthouse at dusk", seed=42)
        self.assertTrue(started["image_id"].startswith("img_"))
        self.assertEqual((started["seed"], started["negative_prompt"]), (42, None))
        progress: List[int] = []
        final = api.wait_for_image(started["image_id"], interval=POLL, timeout=WAIT, on_progress=lambda i: progress.append(i["progress"]))
        self.assertEqual(final["status"], "completed", final)
        self.assertEqual(progress[-1], 100)
        self.assertEqual(download(final["image_urls"][0])[:8], b"\x89PNG\r\n\x1a\n")
        self.assertEqual(api.get_image(started["image_id"]), final)
        self.assertIn(started["image_id"], [i["image_id"] for i in api.list_images(page=1, limit=50)["images"]])

        other = api.generate_image(prompt="never mind")
        self.assertEqual(api.cancel_image(other["image_id"])["error"]["code"], "canceled")


class UploadsTest(unittest.TestCase):
    def test_upload_bytes_a_path_and_directly_to_storage(self) -> None:
        api = client()
        image = png(16, 12)
        from_bytes = api.upload_image(image, content_type="image/png")
        self.assertEqual((from_bytes["content_type"], from_bytes["size"]), ("image/png", len(image)))
        self.assertEqual(download(from_bytes["url"]), image)

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "blue.png")
            with open(path, "wb") as file:
                file.write(image)
            from_path = api.upload_image(path)
        self.assertEqual(download(from_path["url"]), image)

        direct = api.upload_image(image, via="direct")
        self.assertIn("/media/uploads/", direct["url"])
        self.assertEqual(download(direct["url"]), image)

        # And the uploaded URL is accepted as a video's first frame.
        started = api.generate_video(prompt="make it move", generation_type="image_to_video", image_url=from_path["url"], duration=3)
        self.assertEqual(started["image_url"], from_path["url"])
        api.cancel_video(started["video_id"])

    def test_create_and_complete_an_upload_by_hand(self) -> None:
        api = client()
        slot = api.create_upload()
        self.assertTrue(slot["upload_id"].startswith("upl_"))
        with self.assertRaises(ApiError) as nothing_stored:
            api.complete_upload(slot["upload_id"])
        self.assertEqual(nothing_stored.exception.status // 100, 4)


class CreditsTest(unittest.TestCase):
    def test_credits_and_transactions(self) -> None:
        api = client()
        before = api.get_credits()["credits"]
        started = api.generate_video(prompt="count me", duration=3)
        self.assertEqual(api.get_credits()["credits"], before - started["credits_used"])
        api.cancel_video(started["video_id"])
        self.assertEqual(api.get_credits()["credits"], before)
        transactions = api.list_transactions(limit=50)["transactions"]
        mine = [t["amount"] for t in transactions if t["task_id"] == started["video_id"]]
        self.assertEqual(mine, [started["credits_used"], -started["credits_used"]])  # newest first

    def test_usage_by_end_user_as_json_and_csv(self) -> None:
        api = client()
        end_user = f"py-{uuid.uuid4().hex[:12]}"
        started = api.generate_video(prompt="count me", duration=3, end_user=end_user)
        api.cancel_video(started["video_id"])
        price = started["credits_used"]
        report = api.get_usage(group_by="end_user")
        row = [row for row in report["rows"] if row["group"] == end_user]
        self.assertEqual(row, [{"group": end_user, "tasks": 1, "credits_charged": price, "credits_refunded": price, "credits_net": 0}])
        csv = api.get_usage_csv(from_date=report["from"], to_date=report["to"], group_by="end_user")
        self.assertTrue(csv.startswith("end_user,tasks,credits_charged,credits_refunded,credits_net\r\n"))
        self.assertIn(f"\r\n{end_user},1,{price},{price},0\r\n", csv)
        with self.assertRaises(ApiError) as refused:
            api.get_usage(from_date="2026-02-30")
        self.assertEqual((refused.exception.status, refused.exception.code), (400, "validation_error"))
        self.assertTrue(str(refused.exception).startswith("from: "))


class Receiver:
    """A customer's webhook endpoint on 127.0.0.1 that records each request."""

    def __init__(self) -> None:
        self.requests: List[Tuple[Dict[str, str], bytes]] = []
        self.arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver.arrived:
                    receiver.requests.append((dict(self.headers.items()), body))
                    receiver.arrived.notify_all()
                self.send_response(204)
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def wait_for(self, event_id: str, timeout: float = 30) -> Tuple[Dict[str, str], bytes]:
        """The request that carries this event (others of the same account may come first)."""

        def found() -> Any:
            return next((r for r in self.requests if r[0].get("webhook-id") == event_id), None)

        with self.arrived:
            if not self.arrived.wait_for(found, timeout):
                raise AssertionError(f"no webhook request for {event_id} within {timeout} s")
            return found()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class WebhooksTest(unittest.TestCase):
    def test_create_list_test_verify_deliveries_and_delete(self) -> None:
        api = client()
        receiver = Receiver()
        self.addCleanup(receiver.stop)
        created = api.create_webhook(receiver.url, events=["video.completed"], description="python sdk")
        self.assertTrue(created["secret"].startswith("whsec_"))
        self.assertIn(created["webhook_id"], [w["webhook_id"] for w in api.list_webhooks()["webhooks"]])

        sent = api.test_webhook(created["webhook_id"])
        headers, body = receiver.wait_for(sent["event_id"])
        event = verify_webhook(body, headers, created["secret"])
        self.assertEqual((event["id"], event["type"]), (sent["event_id"], "webhook.test"))
        self.assertEqual(event["data"], {"webhook_id": created["webhook_id"]})

        deliveries = api.list_webhook_deliveries(created["webhook_id"], limit=10)["deliveries"]
        self.assertIn(sent["event_id"], [d["event_id"] for d in deliveries])

        self.assertEqual(api.delete_webhook(created["webhook_id"]), {"webhook_id": created["webhook_id"], "deleted": True})
        self.assertNotIn(created["webhook_id"], [w["webhook_id"] for w in api.list_webhooks()["webhooks"]])


class ModelsAndQuotesTest(unittest.TestCase):
    def test_list_models_and_quote_what_a_start_charges(self) -> None:
        api = client()
        models = api.list_models()["models"]
        video = next(m for m in models if m["id"] == "vid-1-5-pro")
        self.assertEqual((video["kind"], video["pricing"]["unit"]), ("video", "second"))
        self.assertTrue(video["capabilities"]["seed"])
        self.assertIn("image-2", [m["id"] for m in models if m["kind"] == "image"])

        quote = api.quote(kind="video", prompt="a paper boat", duration=3)
        self.assertEqual((quote["kind"], quote["model"], quote["can_start"], quote["reason"]), ("video", "vid-1-5-pro", True, None))
        self.assertEqual(quote["balance"], api.get_credits()["credits"])
        started = api.generate_video(prompt="a paper boat", duration=3)
        self.assertEqual(started["credits_used"], quote["credits"])
        api.cancel_video(started["video_id"])
        self.assertEqual(api.quote({"kind": "image", "prompt": "a cat"})["kind"], "image")
        with self.assertRaises(ApiError) as invalid:
            api.quote(kind="video", prompt="a boat", duration=99)
        self.assertEqual((invalid.exception.status, invalid.exception.code), (400, "validation_error"))


class EventsTest(unittest.TestCase):
    def test_list_follow_and_retry_a_delivery_of_a_task_ending(self) -> None:
        api = client()
        started = api.generate_video(prompt="a kite at dawn", duration=3)
        api.wait_for_video(started["video_id"], interval=POLL, timeout=WAIT)

        # The feed holds the ending; follow_events reads it to the end, cursor by cursor.
        cursors: List[str] = []
        followed = None
        for event in api.follow_events(limit=5, interval=POLL, on_cursor=cursors.append):
            if event["data"].get("video_id") == started["video_id"]:
                followed = event
                break
        assert followed is not None
        self.assertEqual((followed["type"], followed["livemode"]), ("video.completed", False))
        listed: List[Any] = []
        page = api.list_events(limit=100)
        listed.extend(page["events"])
        while page["has_more"]:
            page = api.list_events(after=page["next_after"], limit=100)
            listed.extend(page["events"])
        self.assertIn(followed["id"], [e["id"] for e in listed])
        self.assertEqual(api.list_events(after=page["next_after"])["events"], [])

        # An endpoint made after the ending gets it on request, under the event's id.
        receiver = Receiver()
        self.addCleanup(receiver.stop)
        webhook = api.create_webhook(receiver.url)
        self.addCleanup(api.delete_webhook, webhook["webhook_id"])
        self.assertEqual(api.retry_delivery(webhook["webhook_id"], followed["id"]), {"event_id": followed["id"], "status": "pending"})
        headers, body = receiver.wait_for(followed["id"])
        self.assertEqual(verify_webhook(body, headers, webhook["secret"])["data"]["video_id"], started["video_id"])


class AccountTest(unittest.TestCase):
    def test_an_api_key_reads_its_account_but_not_the_keys_or_billing(self) -> None:
        api = client()
        account = api.get_account()
        self.assertTrue(account["account_id"].startswith("acc_"))
        self.assertIsNone(account["email"])
        self.assertEqual(account["test"]["credits"], api.get_credits()["credits"])
        for call in (api.list_keys, api.get_billing):
            with self.assertRaises(ApiError) as refused:
                call()
            self.assertEqual((refused.exception.status, refused.exception.code), (403, "forbidden"))

    def test_create_update_use_and_revoke_a_key(self) -> None:
        holder = session()
        account = holder.get_account()
        self.assertIn("@", account["email"] or "")
        created = holder.create_key(name="python sdk", mode="test", scopes=["read", "generate"])
        self.assertTrue(created["api_key"].startswith("vg_test_"))
        self.assertEqual((created["mode"], created["revoked_at"], created["monthly_spend_limit"]), ("test", None, None))
        self.assertIn(created["key_id"], [k["key_id"] for k in holder.list_keys()["keys"]])

        updated = holder.update_key(created["key_id"], name="renamed", monthly_spend_limit=50)
        self.assertEqual((updated["name"], updated["monthly_spend_limit"]), ("renamed", 50))
        self.assertIsNone(holder.update_key(created["key_id"], monthly_spend_limit=None)["monthly_spend_limit"])

        # The new key works, on the holder's account, within its scopes.
        made = VidgenClient(created["api_key"], base_url=BASE_URL)
        self.assertEqual(made.get_account()["account_id"], account["account_id"])
        with self.assertRaises(ApiError) as out_of_scope:
            made.list_webhooks()
        self.assertEqual((out_of_scope.exception.status, out_of_scope.exception.code), (403, "forbidden"))

        revoked = holder.revoke_key(created["key_id"])
        self.assertIsNotNone(revoked["revoked_at"])
        self.assertEqual(holder.revoke_key(created["key_id"]), revoked)
        listed = next(k for k in holder.list_keys()["keys"] if k["key_id"] == created["key_id"])
        self.assertEqual(listed["revoked_at"], revoked["revoked_at"])
        # (The API stops a used key within one authorizer cache TTL: its own tests check that.)


class BillingTest(unittest.TestCase):
    def test_billing_checkout_portal_and_test_credits(self) -> None:
        live = session("live")
        billing = live.get_billing()
        self.assertEqual((billing["subscription_status"], billing["paid_access"]), ("none", False))
        self.assertTrue(billing["packs"])
        checkout = live.create_checkout(pack_id=billing["packs"][0]["pack_id"])
        self.assertTrue(checkout["url"].startswith("http"))
        self.assertTrue(live.create_billing_portal()["url"].startswith("http"))
        with self.assertRaises(ApiError) as unknown:
            live.create_checkout(pack_id="no-such-pack")
        self.assertEqual((unknown.exception.status, unknown.exception.code), (400, "validation_error"))

        test = session("test")
        before = test.get_credits()["credits"]
        self.assertEqual(test.add_test_credits()["credits"], before + 1000)
        self.assertEqual(test.get_account()["test"]["credits"], before + 1000)
        with self.assertRaises(ApiError) as live_mode:
            live.add_test_credits()
        self.assertEqual(live_mode.exception.status, 400)

    def test_test_subscription(self) -> None:
        test = session("test")
        started = test.start_test_subscription()
        self.assertEqual((started["paid_access"], started["subscription_status"]), (True, "active"))
        self.assertEqual(test.get_credits()["subscription_status"], "active")
        ended = test.end_test_subscription()
        self.assertEqual((ended["paid_access"], ended["subscription_status"]), (False, "canceled"))
        with self.assertRaises(ApiError) as live_mode:
            session("live").start_test_subscription()
        self.assertEqual((live_mode.exception.status, live_mode.exception.code), (400, "validation_error"))


class LosingProxy:
    """A proxy in front of the API that forwards each request and then, as scripted, loses the
    answer: ``lose`` answers a 502 page instead, ``reset`` drops the connection, ``pass`` relays it.
    What the API did is done either way: only the client's retries under one key can save it."""

    def __init__(self, upstream: str, script: List[str]) -> None:
        self.script = list(script)
        self.keys: List[str] = []
        target = urlsplit(upstream)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                proxy.keys.append(self.headers.get("Idempotency-Key", ""))
                upstream_connection = http.client.HTTPConnection(target.hostname or "", target.port, timeout=30)
                upstream_connection.request("POST", self.path, body, headers)
                answer = upstream_connection.getresponse()
                payload = answer.read()
                upstream_connection.close()
                step = proxy.script.pop(0) if proxy.script else "pass"
                if step == "reset":
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True
                    return
                if step == "lose":
                    answer_status, payload, content_type = 502, b"<html>502 Bad Gateway</html>", "text/html"
                else:
                    answer_status, content_type = answer.status, answer.getheader("Content-Type", "")
                self.send_response(answer_status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}{target.path}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class RetriesThroughAFlakyProxyTest(unittest.TestCase):
    def test_a_start_whose_answers_were_lost_is_retried_under_one_key_and_charged_once(self) -> None:
        direct = client()
        proxy = LosingProxy(BASE_URL, ["lose", "reset", "pass"])
        self.addCleanup(proxy.stop)
        retried: List[str] = []
        api = VidgenClient(API_KEY, base_url=proxy.base_url, sleep=lambda _: None, on_retry=lambda r: retried.append(r.error.code))
        before = direct.get_credits()["credits"]
        started = api.generate_video(prompt="a kite over the sea", duration=3)
        self.assertEqual(retried, ["upstream_error", "network_error"])
        self.assertEqual(len(proxy.keys), 3)
        self.assertEqual(len(set(proxy.keys)), 1)
        # Three requests reached the API; one task exists and it was charged once.
        self.assertEqual(direct.get_credits()["credits"], before - started["credits_used"])
        self.assertEqual(direct.list_videos(limit=1)["videos"][0]["video_id"], started["video_id"])
        direct.cancel_video(started["video_id"])


if __name__ == "__main__":
    unittest.main()
