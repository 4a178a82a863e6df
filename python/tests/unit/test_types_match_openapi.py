"""The TypedDicts of vidgen.types against docs/openapi.json: the same field names, and the same
ones required, so the Python types cannot drift from the API's published contract."""
from __future__ import annotations

import json
import unittest
from pathlib import Path
from typing import Any, Dict, Set, Tuple, Union

from vidgen import types

OPENAPI = Path(__file__).resolve().parents[3] / "docs" / "openapi.json"
SCHEMAS: Dict[str, Any] = json.loads(OPENAPI.read_text(encoding="utf-8"))["components"]["schemas"]

#: TypedDict -> the schema it mirrors: a name, or a name and the path to an object inside it.
MIRRORS: Dict[str, Union[str, Tuple[str, ...]]] = {
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
    "WebhookList": "WebhookList",
    "DeletedWebhook": "DeletedWebhook",
    "WebhookTestEvent": "TestEventSent",
    "DeliveryRetried": "DeliveryRetried",
    "TaskEvent": "TaskEvent",
    "EventPage": "EventPage",
    "ModelList": "ModelList",
    "ModelCapabilities": "ModelCapabilities",
    "VideoModelEntry": "VideoModelEntry",
    "ModelPricing": ("VideoModelEntry", "pricing"),
    "VideoModelDefaults": ("VideoModelEntry", "defaults"),
    "VideoModelParameters": ("VideoModelEntry", "parameters"),
    "DurationRange": ("VideoModelEntry", "parameters", "duration"),
    "ImageModelEntry": "ImageModelEntry",
    "ImageModelDefaults": ("ImageModelEntry", "defaults"),
    "ImageModelParameters": ("ImageModelEntry", "parameters"),
    "VideoQuoteParams": ("QuoteRequest", "anyOf", "0"),
    "ImageQuoteParams": ("QuoteRequest", "anyOf", "1"),
    "Quote": "Quote",
    "Account": "Account",
    "Balance": ("Account", "live"),
    "ApiKey": "ApiKey",
    "CreatedApiKey": "CreatedApiKey",
    "ApiKeyList": "ApiKeyList",
    "CreateKeyParams": "CreateKeyRequest",
    "UpdateKeyParams": "UpdateKeyRequest",
    "UpdateAccountParams": "UpdateAccountRequest",
    "Billing": "Billing",
    "BillingPack": ("Billing", "packs", "items"),
    "BillingPlan": ("Billing", "plan"),
    "SubscriptionPayment": ("Billing", "subscription_payments", "items"),
    "CheckoutParams": "CheckoutRequest",
    "BillingRedirect": "BillingRedirect",
    "AuditEvent": "AuditEvent",
    "AuditEventPage": "AuditEventPage",
    "AuditActor": ("AuditEvent", "actor"),
    "AuditTarget": ("AuditEvent", "target"),
    "UsageReport": "UsageReport",
    "UsageRow": "UsageRow",
    "UsageTotals": ("UsageReport", "totals"),
    "OutputDestination": "OutputDestination",
    "OutputDelivery": "OutputDelivery",
    "AccountMembership": "AccountMembership",
    "AccountList": "AccountList",
    "Member": "Member",
    "Invitation": "Invitation",
    "MemberList": "MemberList",
    "MemberRemoved": "MemberRemoved",
    "UpdateMemberParams": "UpdateMemberRequest",
    "InviteMemberParams": "InviteMemberRequest",
    "InvitationRevoked": "InvitationRevoked",
    "ReceivedInvitation": "ReceivedInvitation",
    "ReceivedInvitationList": "ReceivedInvitationList",
}


def schema_at(where: Union[str, Tuple[str, ...]]) -> Dict[str, Any]:
    """A named schema, or the object at a path inside one (through properties, items, anyOf)."""
    if isinstance(where, str):
        return SCHEMAS[where]
    schema: Any = SCHEMAS[where[0]]
    for step in where[1:]:
        if step == "items" or step == "anyOf":
            schema = schema[step]
        elif step.isdigit():
            schema = schema[int(step)]
        else:
            schema = schema["properties"][step]
    return schema


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
    def test_every_response_schema_has_a_typed_dict(self) -> None:
        mirrored = {where for where in MIRRORS.values() if isinstance(where, str)}
        # Envelopes, errors, forms and the server-to-server answers are not the client's to return.
        skipped = {"TaskStatus", "UploadImageForm", "QuoteRequest", "ProviderCallbackAnswer", "StripeWebhookAnswer"}
        wanted = {n for n in SCHEMAS if not n.endswith("Response") and not n.startswith("Error")} - skipped
        self.assertEqual(wanted - mirrored, set())

    def test_every_typed_dict_has_the_schemas_fields(self) -> None:
        for typed_name, schema_name in MIRRORS.items():
            with self.subTest(typed_name):
                typed = getattr(types, typed_name)
                names, required = fields(schema_at(schema_name))
                self.assertEqual(set(typed.__annotations__), names)
                self.assertEqual(set(typed.__required_keys__), required)


if __name__ == "__main__":
    unittest.main()
