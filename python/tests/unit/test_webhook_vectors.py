"""verify_webhook against the vectors the TypeScript client's tests use too
(test/fixtures/webhook-vectors.json), so both clients accept and refuse the same requests."""
from __future__ import annotations

import json
import unittest
from http.client import HTTPMessage
from pathlib import Path

from vidgen import WebhookVerificationError, verify_webhook

VECTORS_FILE = Path(__file__).resolve().parents[3] / "test" / "fixtures" / "webhook-vectors.json"
VECTORS = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))["vectors"]


class WebhookVectorsTest(unittest.TestCase):
    def test_the_file_holds_accepted_and_refused_requests(self) -> None:
        self.assertGreaterEqual(len([v for v in VECTORS if v["valid"]]), 5)
        self.assertEqual(
            {v["error"] for v in VECTORS if not v["valid"]},
            {"No webhook-signature matches", "more than 5 minutes", "not a number of seconds", "Missing"},
        )

    def test_every_vector(self) -> None:
        for vector in VECTORS:
            with self.subTest(vector["name"]):
                if vector["valid"]:
                    event = verify_webhook(vector["body"], vector["headers"], vector["secret"], now=vector["now"])
                    self.assertEqual(event, json.loads(vector["body"]))
                else:
                    with self.assertRaises(WebhookVerificationError) as refused:
                        verify_webhook(vector["body"], vector["headers"], vector["secret"], now=vector["now"])
                    self.assertIn(vector["error"], str(refused.exception))

    def test_the_raw_body_as_bytes_and_headers_as_http_message_or_pairs(self) -> None:
        vector = VECTORS[0]
        message = HTTPMessage()
        for name, value in vector["headers"].items():
            message[name.title()] = value
        pairs = list(vector["headers"].items())
        for headers in (message, pairs):
            event = verify_webhook(vector["body"].encode("utf-8"), headers, vector["secret"], now=vector["now"])
            self.assertEqual(event["id"], json.loads(vector["body"])["id"])

    def test_a_secret_that_is_not_base64_is_refused_clearly(self) -> None:
        vector = VECTORS[0]
        with self.assertRaises(WebhookVerificationError) as refused:
            verify_webhook(vector["body"], vector["headers"], "whsec_not base64!", now=vector["now"])
        self.assertIn("whsec_", str(refused.exception))


if __name__ == "__main__":
    unittest.main()
