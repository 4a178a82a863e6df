"""The client's retry rules (the TypeScript client's), seen from a scripted local HTTP server:
a 429 waits for Retry-After, a reset connection or a proxy's 502/503/504 is retried under the same
Idempotency-Key, a 4xx never is, and calls that are not safe to repeat are retried on 429 only."""
from __future__ import annotations

import unittest
from typing import List

from tests.flaky_server import FlakyServer, Reply, api_error, envelope, json_body, proxy_page
from vidgen import ApiError, RetryInfo, RetryOptions, VidgenClient, backoff_delay, parse_retry_after

TASK = {"video_id": "vid_1", "status": "processing"}


class RetryTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = FlakyServer()
        self.addCleanup(self.server.stop)
        self.slept: List[float] = []
        self.retries: List[RetryInfo] = []
        self.client = self.make_client()

    def make_client(self, **options: object) -> VidgenClient:
        settings = {"base_url": self.server.url, "sleep": self.slept.append, "on_retry": self.retries.append, **options}
        return VidgenClient("vg_test_retry", **settings)  # type: ignore[arg-type]

    def keys(self) -> List[str]:
        return [r.headers.get("Idempotency-Key", "") for r in self.server.received]

    def test_a_429_is_retried_after_retry_after(self) -> None:
        self.server.reply(api_error(429, "rate_limit_exceeded", **{"Retry-After": "2"}), envelope(TASK))
        self.assertEqual(self.client.get_video("vid_1"), TASK)
        self.assertEqual(self.slept, [2.0])
        self.assertEqual(len(self.server.received), 2)

    def test_retry_after_as_an_http_date_and_capped_by_max_delay(self) -> None:
        client = self.make_client(retry=RetryOptions(max_delay=5))
        self.server.reply(api_error(429, "rate_limit_exceeded", **{"Retry-After": "Wed, 21 Oct 2099 07:28:00 GMT"}), envelope(TASK))
        client.get_video("vid_1")
        self.assertEqual(self.slept, [5.0])

    def test_a_start_is_retried_after_proxy_5xx_and_a_reset_under_one_idempotency_key(self) -> None:
        self.server.reply(proxy_page(502), Reply(reset=True), proxy_page(504), envelope(TASK, 201))
        self.assertEqual(self.client.generate_video(prompt="a boat", duration=3), TASK)
        keys = self.keys()
        self.assertEqual(len(keys), 4)
        self.assertEqual(len(set(keys)), 1)
        self.assertRegex(keys[0], r"^[0-9a-f-]{36}$")
        self.assertEqual(json_body(self.server.received[0]), {"prompt": "a boat", "duration": 3})
        self.assertEqual([r.attempt for r in self.retries], [1, 2, 3])
        self.assertEqual([r.error.code for r in self.retries], ["upstream_error", "network_error", "upstream_error"])

    def test_a_503_is_retried_with_backoff_until_max_retries_then_raised(self) -> None:
        self.server.reply(*[proxy_page(503)] * 4)
        with self.assertRaises(ApiError) as raised:
            self.client.list_videos(page=2, limit=5)
        self.assertEqual((raised.exception.code, raised.exception.status), ("upstream_error", 503))
        self.assertEqual(len(self.server.received), 4)
        self.assertEqual(self.server.received[0].path, "/videos?page=2&limit=5")
        for attempt, delay in enumerate(self.slept):
            ceiling = 0.5 * 2 ** attempt
            self.assertTrue(ceiling / 2 <= delay <= ceiling, (attempt, delay))

    def test_a_4xx_is_never_retried_and_carries_code_status_and_request_id(self) -> None:
        for status, code in ((400, "validation_error"), (401, "unauthorized"), (404, "not_found"), (409, "task_not_cancelable")):
            with self.subTest(status=status):
                self.server.received.clear()
                self.server.reply(api_error(status, code, "prompt: Required"))
                with self.assertRaises(ApiError) as raised:
                    self.client.generate_video(prompt="")
                error = raised.exception
                self.assertEqual((error.code, error.status, error.request_id), (code, status, f"req_{status}"))
                self.assertEqual(str(error), "prompt: Required")
                self.assertEqual(len(self.server.received), 1)
        self.assertEqual(self.slept, [])

    def test_the_apis_own_502_under_an_idempotency_key_is_final(self) -> None:
        # The provider refused and the credits were refunded: a retry could only replay it.
        self.server.reply(api_error(502, "upstream_error"))
        with self.assertRaises(ApiError):
            self.client.generate_video(prompt="a boat")
        self.assertEqual(len(self.server.received), 1)

    def test_a_caller_key_is_sent_and_none_turns_5xx_retries_off(self) -> None:
        self.server.reply(proxy_page(503), envelope(TASK))
        self.client.generate_image(prompt="a cat", idempotency_key="my-key-1")
        self.assertEqual(self.keys(), ["my-key-1", "my-key-1"])

        self.server.received.clear()
        self.server.reply(proxy_page(503))
        with self.assertRaises(ApiError):
            self.client.generate_video(prompt="a boat", idempotency_key=None)
        self.assertEqual(len(self.server.received), 1)
        self.assertNotIn("Idempotency-Key", self.server.received[0].headers)

    def test_calls_not_safe_to_repeat_are_retried_on_429_only(self) -> None:
        self.server.reply(api_error(429, "rate_limit_exceeded", **{"Retry-After": "1"}), envelope(TASK))
        self.client.cancel_video("vid_1")
        self.assertEqual(len(self.server.received), 2)
        for call in (lambda: self.client.cancel_image("img_1"), lambda: self.client.test_webhook("whk_1")):
            self.server.received.clear()
            self.server.reply(Reply(reset=True))
            with self.assertRaises(ApiError) as raised:
                call()
            self.assertEqual((raised.exception.code, raised.exception.status), ("network_error", 0))
            self.assertEqual(len(self.server.received), 1)

    def test_the_account_keys_and_billing_calls_retry_as_the_typescript_client(self) -> None:
        # After a proxy's 503: retried when a repeat is harmless, not when it would do it again.
        retried = {
            "get_account": lambda: self.client.get_account(),
            "list_keys": lambda: self.client.list_keys(),
            "update_key": lambda: self.client.update_key("key_1", name="n"),
            "revoke_key": lambda: self.client.revoke_key("key_1"),
            "list_models": lambda: self.client.list_models(),
            "quote": lambda: self.client.quote(kind="image", prompt="a cat"),
            "list_events": lambda: self.client.list_events(),
            "retry_delivery": lambda: self.client.retry_delivery("whk_1", "evt_1"),
            "get_billing": lambda: self.client.get_billing(),
            "create_checkout": lambda: self.client.create_checkout(plan=True),
            "create_billing_portal": lambda: self.client.create_billing_portal(),
            "start_test_subscription": lambda: self.client.start_test_subscription(),
            "end_test_subscription": lambda: self.client.end_test_subscription(),
        }
        for name, call in retried.items():
            with self.subTest(name):
                self.server.received.clear()
                self.server.reply(proxy_page(503), envelope({"ok": True}))
                self.assertEqual(call(), {"ok": True})
                self.assertEqual(len(self.server.received), 2)
        not_retried = {
            "create_key": lambda: self.client.create_key(name="CI"),
            "add_test_credits": lambda: self.client.add_test_credits(),
        }
        for name, call in not_retried.items():
            with self.subTest(name):
                self.server.received.clear()
                self.server.reply(proxy_page(503))
                with self.assertRaises(ApiError) as raised:
                    call()
                self.assertEqual(raised.exception.status, 503)
                self.assertEqual(len(self.server.received), 1)
                # A 429 is retried all the same: nothing happened.
                self.server.received.clear()
                self.server.reply(api_error(429, "rate_limit_exceeded", **{"Retry-After": "1"}), envelope({"ok": True}))
                self.assertEqual(call(), {"ok": True})
                self.assertEqual(len(self.server.received), 2)

    def test_max_retries_zero_turns_retrying_off(self) -> None:
        client = self.make_client(retry=RetryOptions(max_retries=0))
        self.server.reply(api_error(429, "rate_limit_exceeded", **{"Retry-After": "1"}))
        with self.assertRaises(ApiError) as raised:
            client.get_credits()
        self.assertEqual(raised.exception.retry_after, 1)
        self.assertEqual(len(self.server.received), 1)

    def test_no_answer_within_the_timeout_is_a_network_error(self) -> None:
        client = self.make_client(timeout=0.2, retry=RetryOptions(max_retries=1))
        self.server.reply(Reply(stall=True), envelope({"credits": 5}))
        self.assertEqual(client.get_credits(), {"credits": 5})
        self.assertEqual(self.retries[0].error.code, "network_error")
        self.assertIn("No answer from GET", str(self.retries[0].error))

    def test_nothing_listening_is_a_network_error(self) -> None:
        client = VidgenClient("vg_test_x", base_url="http://127.0.0.1:9/api/v1", retry=RetryOptions(max_retries=0))
        with self.assertRaises(ApiError) as raised:
            client.get_credits()
        self.assertEqual((raised.exception.code, raised.exception.status), ("network_error", 0))

    def test_an_answer_that_is_not_the_envelope(self) -> None:
        self.server.reply(Reply(200, "<html>captive portal</html>", {"Content-Type": "text/html"}))
        with self.assertRaises(ApiError) as raised:
            self.client.create_upload()
        self.assertEqual((raised.exception.code, raised.exception.status), ("internal_error", 200))
        self.assertIn("captive portal", str(raised.exception))


class RetryRulesTest(unittest.TestCase):
    def test_parse_retry_after(self) -> None:
        self.assertEqual(parse_retry_after("7"), 7)
        self.assertEqual(parse_retry_after(" 0 "), 0)
        self.assertIsNone(parse_retry_after(None))
        self.assertIsNone(parse_retry_after("soon"))
        self.assertIsNone(parse_retry_after("-3"))
        self.assertEqual(parse_retry_after("Wed, 21 Oct 2026 07:28:10 GMT", now=1792567680.0), 10)
        self.assertEqual(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), 0)

    def test_backoff_doubles_with_equal_jitter_and_a_cap(self) -> None:
        options = RetryOptions(base_delay=1, max_delay=4)
        for attempt, ceiling in ((0, 1), (1, 2), (2, 4), (5, 4)):
            for _ in range(20):
                self.assertTrue(ceiling / 2 <= backoff_delay(attempt, options) <= ceiling)


if __name__ == "__main__":
    unittest.main()
