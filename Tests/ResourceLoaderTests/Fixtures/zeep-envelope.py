"""Compares ResourceLoader's placeOrder envelope with zeep's for the same call.

Usage: zeep-envelope.py WSDL_URL card|iban < envelope.xml

zeep (a second, independent SOAP client) reads the WSDL of spyne-typed-service.py and builds the
request for the order that SpyneTypedRequestTests sends; both Body contents are reduced to their
XML information set (namespace-qualified names, attributes, text, order of elements; prefixes and
namespace declarations aside, QNames in xsi:type resolved) and compared. Prints "SAME", or both
information sets when they differ.

Needs: pip install zeep lxml
"""

import datetime
import decimal
import json
import sys

from lxml import etree
from zeep import Client

XSI_TYPE = "{http://www.w3.org/2001/XMLSchema-instance}type"


def infoset(element):
    attributes = []
    for name, value in sorted(element.attrib.items()):
        if name == XSI_TYPE and ":" in value:
            prefix, local = value.split(":", 1)
            value = "{%s}%s" % (element.nsmap.get(prefix), local)
        attributes.append([name, value])
    children = [infoset(child) for child in element if isinstance(child.tag, str)]
    text = element.text or ""
    if children and not text.strip():
        text = ""
    return [element.tag, attributes, text, children]


def body_infoset(envelope):
    body = [child for child in envelope if isinstance(child.tag, str) and etree.QName(child).localname == "Body"][0]
    return [infoset(child) for child in body if isinstance(child.tag, str)]


def main():
    wsdl, payment = sys.argv[1], sys.argv[2]
    ours = etree.fromstring(sys.stdin.buffer.read())
    client = Client(wsdl)
    shop = client.type_factory("ns0")
    order = shop.Order(
        id="A<&>1",
        customer="Ada \"Lovelace\" <&> 'x'",
        address=shop.Address(street="1 High St", city="Zürich"),
        items=shop.LineItemArray(LineItem=[
            shop.LineItem(sku="A-1", quantity=2, price=decimal.Decimal("9.99")),
            shop.LineItem(sku="B-2", quantity=1, price=decimal.Decimal("12345678901234567890.0001")),
        ]),
        tags=["new", "gift"],
        note=None,
        color="green",
        placed=datetime.datetime(2026, 1, 2, 8, 34, 5, tzinfo=datetime.timezone(datetime.timedelta(minutes=330))),
        deliveryDate=datetime.date(2026, 2, 28),
        total=decimal.Decimal("-0.05"),
        payload=b"\x00\xff<&>\x00",
        pet=shop.Dog(name="Rex", barks=True),
    )
    if payment == "card":
        order.card = shop.Card(number="4111 <1111>", holder="A & L")
    else:
        order.iban = "CH93 0076 2011 6238 5295 7"
    theirs = client.create_message(client.service, "placeOrder", order=order)
    mine, zeeps = body_infoset(ours), body_infoset(theirs)
    if mine == zeeps:
        print("SAME")
    else:
        print(json.dumps({"ResourceLoader": mine, "zeep": zeeps}, ensure_ascii=False))


if __name__ == "__main__":
    main()
