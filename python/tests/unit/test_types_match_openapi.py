"""The TypedDicts of vidgen.types against docs/openapi.json: the same field names, and the same
ones required, so the Python types cannot drift from the API's published contract."""
from __future__ import annotations

import json
import unittest
from pathlib import Path
from typing import Any, Dict, Set, Tuple

from vidgen import types

OPENAPI = Path(__file__).resolve().parents[3] / "docs" / "openapi.json"
SCHEMAS: Dict[str, Any] = json.loads(OPENAPI.read_text(encoding="utf-8"))["components"]["schemas"]

#: TypedDict -> the schema it mirrors (where the names differ).
MIRRORS = {
    "VideoTask": "VideoTask",
    "ImageTask": "ImageTask",
    "TaskError": "TaskError",
    "Pagination": "Pagination",
    "VideoPage": "VideoPage",
    "ImagePage": "ImagePage",
    "UploadedImage": "UploadedImage",
    "DirectUpload": "DirectUpload",
    "Credits": "Credits",
    "CreditTransaction": "CreditTransaction",
    "TransactionPage": "TransactionPage",
    "Webhook": "Webhook",
    "CreatedWebhook": "CreatedWebhook",
    "Delivery": "Delivery",
    "DeliveryPage": "DeliveryPage",
    "GenerateVideoParams": "GenerateVideoRequest",
    "GenerateImageParams": "GenerateImageRequest",
    "CreateWebhookParams": "CreateWebhookRequest",
}


def fields(schema: Dict[str, Any]) -> Tuple[Set[str], Set[str]]:
    """Every property and the always-required ones (what every oneOf branch requires counts)."""
    if "$ref" in schema:
        return fields(SCHEMAS[schema["$ref"].split("/")[-1]])
    names = set(schema.get("properties", {}))
    required = set(schema.get("required", []))
    for part in schema.get("allOf", []):
        more, more_required = fields(part)
        names |= more
        required |= more_required
    return names, required


class TypesMatchOpenApiTest(unittest.TestCase):
    def test_every_typed_dict_has_the_schemas_fields(self) -> None:
        for typed_name, schema_name in MIRRORS.items():
            with self.subTest(typed_name):
                typed = getattr(types, typed_name)
                names, required = fields(SCHEMAS[schema_name])
                self.assertEqual(set(typed.__annotations__), names)
                self.assertEqual(set(typed.__required_keys__), required)


if __name__ == "__main__":
    unittest.main()
