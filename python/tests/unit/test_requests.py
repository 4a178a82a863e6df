"""What the client sends (credentials, mode, bodies, uploads) and how it waits, against a
scripted local HTTP server."""
from __future__ import annotations

import os
import tempfile
import unittest
from typing import Any, List

from tests.flaky_server import FlakyServer, Reply, api_error, envelope, json_body
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

    def test_account_sends_vidgen_account_with_a_session_only(self) -> None:
        chosen = VidgenClient(session_token="eyJ.token", account=" acc_team ", base_url=self.server.url)
        self.assertEqual(chosen.account, "acc_team")
        self.server.reply(envelope({}), envelope({}))
        chosen.get_account()
        VidgenClient(session_token="eyJ.token", base_url=self.server.url).get_account()
        self.assertEqual([r.headers.get("Vidgen-Account") for r in self.server.received], ["acc_team", None])
        with self.assertRaisesRegex(ValueError, "an API key acts on its own account"):
            VidgenClient("vg_live_x", account="acc_team")
        with self.assertRaisesRegex(ValueError, "account is an account id"):
            VidgenClient(session_token="t", account=" ")

    def test_a_role_change_is_retried_after_a_5xx_but_a_removal_is_not(self) -> None:
        member = {"holder_id": "h", "email": "dev@example.com", "role": "admin", "joined_at": "t"}
        self.server.reply(api_error(503, "service_unavailable", "busy"), envelope(member))
        self.assertEqual(self.client.update_member("h", role="admin"), member)
        self.assertEqual(len(self.server.received), 2)
        self.server.received.clear()
        self.server.reply(api_error(503, "service_unavailable", "busy"), envelope({"holder_id": "h", "removed": True}))
        with self.assertRaises(ApiError):
            self.client.remove_member("h")
        self.assertEqual(len(self.server.received), 1)

    def test_an_invite_is_retried_after_a_5xx_but_an_accept_or_a_revoke_is_not(self) -> None:
        invitation = {"invitation_id": "inv_1", "email": "new@example.com", "role": "viewer", "invited_by": "h", "created_at": "t", "expires_at": "t"}
        self.server.reply(api_error(503, "service_unavailable", "busy"), envelope(invitation))
        self.assertEqual(self.client.invite_member("new@example.com", role="viewer"), invitation)
        self.assertEqual(len(self.server.received), 2)
        for call in (lambda: self.client.accept_invitation("inv_1"), lambda: self.client.revoke_invitation("inv_1")):
            self.server.received.clear()
            self.server.reply(api_error(503, "service_unavailable", "busy"))
            with self.assertRaises(ApiError):
                call()
            self.assertEqual(len(self.server.received), 1)

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

    def test_starts_send_end_user_and_metadata_only_when_given(self) -> None:
        self.server.reply(envelope({"video_id": "vid_1"}), envelope({"image_id": "img_1"}), envelope({"video_id": "vid_2"}))
        self.client.generate_video(prompt="a fox", end_user="alice", metadata={"order": "1001"})
        self.client.generate_image({"prompt": "a lighthouse"}, end_user="bob")
        self.client.generate_video(prompt="plain")
        bodies = [json_body(sent) for sent in self.server.received]
        self.assertEqual(bodies[0], {"prompt": "a fox", "end_user": "alice", "metadata": {"order": "1001"}})
        self.assertEqual(bodies[1], {"prompt": "a lighthouse", "end_user": "bob"})
        self.assertEqual(bodies[2], {"prompt": "plain"})

    def test_starts_send_the_delivery_fields_only_when_given(self) -> None:
        self.server.reply(envelope({"video_id": "vid_1"}), envelope({"image_id": "img_1"}), envelope({"video_id": "vid_2"}))
        azure = {"url": "https://acct.blob.core.windows.net/c/v.mp4?sp=cw&sig=x", "headers": {"x-ms-blob-type": "BlockBlob"}}
        self.client.generate_video(
            prompt="a fox", output_destination=azure, thumbnail_destination={"url": "https://b.example/t.jpg"}, keep_output=False
        )
        self.client.generate_image({"prompt": "a lighthouse"}, output_destination={"url": "https://b.example/i.png"})
        self.client.generate_video(prompt="plain")
        bodies = [json_body(sent) for sent in self.server.received]
        self.assertEqual(
            bodies[0],
            {"prompt": "a fox", "output_destination": azure, "thumbnail_destination": {"url": "https://b.example/t.jpg"}, "keep_output": False},
        )
        self.assertEqual(bodies[1], {"prompt": "a lighthouse", "output_destination": {"url": "https://b.example/i.png"}})
        self.assertEqual(bodies[2], {"prompt": "plain"})

    def test_lists_send_end_user_only_when_given(self) -> None:
        page = {"videos": [], "pagination": {}}
        self.server.reply(envelope(page), envelope({"images": [], "pagination": {}}), envelope(page))
        self.client.list_videos(end_user="alice@example.com", limit=5)
        self.client.list_images(end_user="bob")
        self.client.list_videos()
        self.assertEqual(
            [sent.path for sent in self.server.received],
            ["/api/v1/videos?limit=5&end_user=alice%40example.com", "/api/v1/images?end_user=bob", "/api/v1/videos"],
        )

    def test_account_keys_models_quotes_events_and_billing_requests(self) -> None:
        calls = [
            (lambda: self.client.get_account(), "GET", "/api/v1/account", None),
            (lambda: self.client.list_keys(), "GET", "/api/v1/keys", None),
            (lambda: self.client.list_accounts(), "GET", "/api/v1/accounts", None),
            (lambda: self.client.list_members(), "GET", "/api/v1/account/members", None),
            (lambda: self.client.update_member("holder/2", role="admin"), "PATCH", "/api/v1/account/members/holder%2F2", {"role": "admin"}),
            (lambda: self.client.remove_member("holder-2"), "DELETE", "/api/v1/account/members/holder-2", None),
            (lambda: self.client.invite_member("new@example.com", role="developer"), "POST", "/api/v1/account/members",
             {"email": "new@example.com", "role": "developer"}),
            (lambda: self.client.revoke_invitation("inv_1"), "DELETE", "/api/v1/account/members/invitations/inv_1", None),
            (lambda: self.client.list_invitations(), "GET", "/api/v1/invitations", None),
            (lambda: self.client.accept_invitation("inv/1"), "POST", "/api/v1/invitations/inv%2F1/accept", None),
            (lambda: self.client.create_key(name="CI", scopes=["read"], monthly_spend_limit=500), "POST", "/api/v1/keys",
             {"name": "CI", "scopes": ["read"], "monthly_spend_limit": 500}),
            (lambda: self.client.create_key({"name": "nightly", "mode": "test"}), "POST", "/api/v1/keys", {"name": "nightly", "mode": "test"}),
            # None is sent: it removes the limit.
            (lambda: self.client.update_key("key_1", monthly_spend_limit=None), "PATCH", "/api/v1/keys/key_1", {"monthly_spend_limit": None}),
            (lambda: self.client.revoke_key("key/1"), "DELETE", "/api/v1/keys/key%2F1", None),
            (lambda: self.client.list_models(), "GET", "/api/v1/models", None),
            (lambda: self.client.quote(kind="video", prompt="a boat", duration=3), "POST", "/api/v1/quote",
             {"kind": "video", "prompt": "a boat", "duration": 3}),
            (lambda: self.client.list_events(after="cur_1", limit=10), "GET", "/api/v1/events?after=cur_1&limit=10", None),
            (lambda: self.client.list_events(), "GET", "/api/v1/events", None),
            (lambda: self.client.list_audit_events(after="aud_1", limit=10), "GET", "/api/v1/audit-events?after=aud_1&limit=10", None),
            (lambda: self.client.list_audit_events(), "GET", "/api/v1/audit-events", None),
            (lambda: self.client.get_usage(from_date="2026-11-01", to_date="2026-11-30", group_by="end_user"), "GET",
             "/api/v1/usage?from=2026-11-01&to=2026-11-30&group_by=end_user", None),
            (lambda: self.client.get_usage(), "GET", "/api/v1/usage", None),
            (lambda: self.client.retry_delivery("whk_1", "evt_1"), "POST", "/api/v1/webhooks/whk_1/deliveries/evt_1/retry", None),
            (lambda: self.client.get_billing(), "GET", "/api/v1/billing", None),
            (lambda: self.client.create_checkout(pack_id="starter"), "POST", "/api/v1/billing/checkout", {"pack_id": "starter"}),
            (lambda: self.client.create_checkout({"plan": True}), "POST", "/api/v1/billing/checkout", {"plan": True}),
            (lambda: self.client.create_billing_portal(), "POST", "/api/v1/billing/portal", None),
            (lambda: self.client.add_test_credits(), "POST", "/api/v1/billing/test-credits", None),
            (lambda: self.client.start_test_subscription(), "POST", "/api/v1/billing/test-subscription", None),
            (lambda: self.client.end_test_subscription(), "DELETE", "/api/v1/billing/test-subscription", None),
        ]
        for call, method, path, body in calls:
            with self.subTest(path=path, body=body):
                self.server.received.clear()
                self.server.reply(envelope({"ok": True}))
                self.assertEqual(call(), {"ok": True})
                sent = self.server.received[0]
                self.assertEqual((sent.method, sent.path, json_body(sent)), (method, path, body))
                self.assertEqual(sent.headers.get("Content-Type") == "application/json", body is not None)
                self.assertNotIn("Idempotency-Key", sent.headers)

    def test_usage_csv_is_the_answer_text_and_its_refusal_an_api_error(self) -> None:
        csv = "end_user,tasks,credits_charged,credits_refunded,credits_net\r\nalice,1,25,0,25\r\n"
        self.server.reply(
            Reply(200, csv, {"Content-Type": "text/csv; charset=utf-8"}),
            api_error(400, "validation_error", "group_by: must be one of day, model, key, end_user"),
        )
        self.assertEqual(self.client.get_usage_csv(group_by="end_user"), csv)
        sent = self.server.received[0]
        self.assertEqual((sent.path, sent.headers.get("Accept")), ("/api/v1/usage?group_by=end_user", "text/csv"))
        with self.assertRaises(ApiError) as raised:
            self.client.get_usage_csv(group_by="week")
        self.assertEqual((raised.exception.status, raised.exception.code), (400, "validation_error"))

    def test_audit_events_csv_is_the_answer_text_with_the_page_query(self) -> None:
        csv = "id,at,actor_type,actor_id,actor_email,action,target_type,target_id,ip,user_agent,details\r\n"
        self.server.reply(Reply(200, csv, {"Content-Type": "text/csv; charset=utf-8"}), api_error(403, "forbidden", "an API key may not"))
        self.assertEqual(self.client.get_audit_events_csv(after="aud_1", limit=2), csv)
        sent = self.server.received[0]
        self.assertEqual((sent.path, sent.headers.get("Accept")), ("/api/v1/audit-events?after=aud_1&limit=2", "text/csv"))
        with self.assertRaises(ApiError) as raised:
            self.client.get_audit_events_csv()
        self.assertEqual((raised.exception.status, raised.exception.code), (403, "forbidden"))

    def test_follow_events_reads_on_with_each_cursor_and_waits_once_caught_up(self) -> None:
        def page(ids: List[str], has_more: bool, cursor: str) -> Any:
            return envelope({"events": [{"id": i} for i in ids], "has_more": has_more, "next_after": cursor})

        self.server.reply(page(["evt_1", "evt_2"], True, "c2"), page(["evt_3"], False, "c3"), page([], False, "c3"), page(["evt_4"], False, "c4"))
        cursors: List[str] = []
        seen: List[str] = []
        for event in self.client.follow_events(after="c0", limit=2, interval=1.5, on_cursor=cursors.append):
            seen.append(event["id"])
            if event["id"] == "evt_4":
                break
        self.assertEqual(seen, ["evt_1", "evt_2", "evt_3", "evt_4"])
        self.assertEqual(cursors, ["c2", "c3", "c3"])  # the last page's cursor comes after its events
        paths = [r.path for r in self.server.received]
        self.assertEqual(paths, ["/api/v1/events?after=c0&limit=2", "/api/v1/events?after=c2&limit=2", "/api/v1/events?after=c3&limit=2", "/api/v1/events?after=c3&limit=2"])
        # No wait while more is waiting; one after each page that caught up (none after the break).
        self.assertEqual(self.slept, [1.5, 1.5])

    def test_a_session_token_function_is_asked_before_each_request(self) -> None:
        tokens = iter(["first", "second"])
        client = VidgenClient(session_token=lambda: next(tokens), base_url=self.server.url)
        self.server.reply(envelope({}), envelope({}))
        client.get_account()
        client.get_billing()
        self.assertEqual([r.headers["Authorization"] for r in self.server.received], ["Bearer first", "Bearer second"])
        self.assertEqual([r.headers["Vidgen-Mode"] for r in self.server.received], ["live", "live"])
        self.assertEqual(VidgenClient("vg_test_x", mode="test").mode, "test")
        with self.assertRaises(ValueError):
            VidgenClient(session_token="t", mode="sandbox")  # type: ignore[arg-type]

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
