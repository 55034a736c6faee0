"""zeep, an independent SOAP client, calls every operation of spyne-generated-service.py.

Usage: zeep-generated-client.py <wsdl-url>

Loads the service's WSDL, makes the same calls with the same values as the Swift tests of the
generated code, and prints one JSON object with what came back, every value as text, so that the
tests can check that both clients got the same answers.

Needs: pip install zeep
"""

import base64
import binascii
import datetime
import decimal
import json
import sys

import zeep
from zeep.exceptions import Fault
from zeep.wsse.username import UsernameToken
from zeep.wsse.utils import WSU

PASSWORD = "Pa55-<&>-word"


def text(value):
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, bytes):
        return binascii.hexlify(value).decode()
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    return str(value)


def order_text(order):
    return {
        "id": order.id,
        "customer": order.customer,
        "address": [order.address.street, order.address.city],
        "items": [[i.sku, text(i.quantity), text(i.price)] for i in order.items.LineItem],
        "tags": list(order.tags),
        "note": order.note,
        "nickname": order.nickname,
        "color": order.color,
        "placed": text(order.placed),
        "deliveryDate": text(order.deliveryDate),
        "total": text(order.total),
        "payload": text(order.payload),
        "gift": text(order.gift),
    }


def main():
    client = zeep.Client(sys.argv[1])
    service = client.service
    result = {}
    order = {
        "id": "A<&>1",
        "customer": 'Ada "Lovelace" <&> \'x\'',
        "address": {"street": "1 High St", "city": "Zürich"},
        "items": {"LineItem": [
            {"sku": "A-1", "quantity": 2, "price": decimal.Decimal("9.99")},
            {"sku": "B-2", "quantity": 1, "price": decimal.Decimal("12345678901234567890.0001")},
        ]},
        "tags": ["new", "gift"],
        "note": None,
        "color": "green",
        "placed": datetime.datetime(2026, 1, 2, 8, 34, 5, tzinfo=datetime.timezone(datetime.timedelta(minutes=330))),
        "deliveryDate": datetime.date(2026, 2, 28),
        "total": decimal.Decimal("-0.05"),
        "payload": bytes([0x00, 0xFF]) + b"<&>" + bytes([0x00]),
        "gift": True,
    }
    result["echoOrder"] = order_text(service.echoOrder(order))
    item = service.findItem("B-2")
    result["findItem"] = [item.sku, text(item.quantity), text(item.price)]
    try:
        service.findItem("Z-9")
        result["findItemFault"] = None
    except Fault as fault:
        detail = fault.detail.find("{urn:example:warehouse}ItemNotFound")
        result["findItemFault"] = {
            "code": fault.code,
            "message": fault.message,
            "sku": detail.findtext("{urn:example:warehouse}sku"),
            "known": [e.text for e in detail.findall("{urn:example:warehouse}known")],
        }
    result["total"] = text(service.total([decimal.Decimal("0.1"), decimal.Decimal("0.2"), decimal.Decimal("-12345678901234567890.0001")]))
    now = datetime.datetime.now(datetime.timezone.utc)
    timestamp = WSU.Timestamp()
    timestamp.append(WSU.Created(now.strftime("%Y-%m-%dT%H:%M:%SZ")))
    timestamp.append(WSU.Expires((now + datetime.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")))
    secure = zeep.Client(sys.argv[1], wsse=UsernameToken("ada", PASSWORD, use_digest=True, timestamp_token=timestamp))
    result["whoAmI"] = secure.service.whoAmI("hi <there> & all")
    tenant = client.get_element("{urn:example:warehouse}Tenant")
    stock = service.stock("A-1", _soapheaders=[tenant(name="acme & co")])
    result["stock"] = stock.body.stockResult
    result["stockQuota"] = [text(stock.header.Quota.remaining), text(stock.header.Quota.resets)]
    print(json.dumps(result, sort_keys=True, ensure_ascii=False))


if __name__ == "__main__":
    main()
