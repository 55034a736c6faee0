"""A real SOAP peer for ResourceLoader's typed-request tests: spyne services over SOAP 1.1 and 1.2.

Serves, in the target namespace urn:example:shop, on 127.0.0.1 at a port the system picks
(printed as "PORT <n>" on the first line once it listens):

- /soap11 and /soap12: the same application in SOAP 1.1 and SOAP 1.2, validated by lxml against
  its schema. placeOrder(order) answers with a JSON summary of the order exactly as spyne read
  it (types, offsets, bytes in hex), so a test can check every value arrived. whoAmI(greeting)
  requires a WS-Security UsernameToken (user "ada", password "Pa55-<&>-word", as text or as
  a digest, with a Timestamp that has not expired) and answers "hello ada: <greeting>"; a
  missing or wrong token gets a Client.FailedAuthentication Fault.

The WSDLs are at /soap11?wsdl and /soap12?wsdl. It stops on its own: after --lifetime seconds
(default 60), when its standard input closes, or after --max-requests requests (default 100).

Needs: pip install spyne lxml
"""

import argparse
import base64
import binascii
import datetime
import hashlib
import json
import logging
import os
import sys
import threading
from wsgiref.simple_server import WSGIRequestHandler, make_server

from spyne import (Application, Array, Boolean, ByteArray, ComplexModel, Date, DateTime, Decimal, Enum, Fault,
                   Integer, ServiceBase, Unicode, XmlAttribute, rpc)
from spyne.protocol.soap import Soap11, Soap12
from spyne.server.wsgi import WsgiApplication
from spyne.util.wsgi_wrapper import WsgiMounter

NAMESPACE = "urn:example:shop"
WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
WSU = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
USER = "ada"
PASSWORD = "Pa55-<&>-word"


class Address(ComplexModel):
    __namespace__ = NAMESPACE
    _type_info = [("street", Unicode), ("city", Unicode)]


class LineItem(ComplexModel):
    __namespace__ = NAMESPACE
    _type_info = [("sku", Unicode), ("quantity", Integer), ("price", Decimal)]


class Card(ComplexModel):
    __namespace__ = NAMESPACE
    _type_info = [("number", Unicode), ("holder", Unicode)]


class Animal(ComplexModel):
    __namespace__ = NAMESPACE
    _type_info = [("name", Unicode)]


class Dog(Animal):
    __namespace__ = NAMESPACE
    _type_info = [("barks", Boolean)]


Color = Enum("red", "green", "blue", type_name="Color")


class Order(ComplexModel):
    __namespace__ = NAMESPACE
    _type_info = [
        ("id", XmlAttribute(Unicode)),
        ("customer", Unicode),
        ("address", Address),
        ("items", Array(LineItem)),
        ("tags", Unicode(max_occurs="unbounded")),
        ("note", Unicode(nillable=True, min_occurs=1)),
        ("nickname", Unicode(min_occurs=0)),
        ("color", Color),
        ("placed", DateTime),
        ("deliveryDate", Date),
        ("total", Decimal),
        ("payload", ByteArray),
        # A choice, as spyne can describe one: at most one of these is sent.
        ("card", Card.customize(min_occurs=0)),
        ("iban", Unicode(min_occurs=0)),
        ("pet", Animal),
    ]


def summary(order):
    """What spyne read, in a form a test can compare exactly."""
    payload = b"".join(order.payload) if order.payload is not None else None
    chosen = "card" if order.card is not None else ("iban" if order.iban is not None else None)
    return {
        "id": order.id,
        "customer": order.customer,
        "address": [order.address.street, order.address.city] if order.address else None,
        "items": [[i.sku, i.quantity, str(i.price)] for i in (order.items or [])],
        "tags": list(order.tags or []),
        "note": order.note,
        "nickname": order.nickname,
        "color": str(order.color) if order.color is not None else None,
        "placed": order.placed.isoformat() if order.placed else None,
        "placedOffsetMinutes": int(order.placed.utcoffset().total_seconds() // 60) if order.placed and order.placed.utcoffset() is not None else None,
        "deliveryDate": order.deliveryDate.isoformat() if order.deliveryDate else None,
        "total": str(order.total),
        "payload": binascii.hexlify(payload).decode() if payload is not None else None,
        "choice": chosen,
        "card": [order.card.number, order.card.holder] if order.card is not None else None,
        "iban": order.iban,
        "pet": type(order.pet).__name__ if order.pet is not None else None,
        "petName": order.pet.name if order.pet is not None else None,
        "barks": getattr(order.pet, "barks", None),
    }


class ShopService(ServiceBase):
    @rpc(Order, _returns=Unicode)
    def placeOrder(ctx, order):
        return json.dumps(summary(order), sort_keys=True)

    @rpc(Unicode, _returns=Unicode)
    def whoAmI(ctx, greeting):
        check_security(ctx)
        return f"hello {USER}: {greeting}"


def fail():
    raise Fault(faultcode="Client.FailedAuthentication", faultstring="The security token could not be authenticated")


def check_security(ctx):
    """A WS-Security UsernameToken Profile 1.1 check: text or digest password, and a live Timestamp."""
    envelope = ctx.in_document
    security = envelope.find(f"./{{*}}Header/{{{WSSE}}}Security")
    if security is None:
        fail()
    token = security.find(f"{{{WSSE}}}UsernameToken")
    timestamp = security.find(f"{{{WSU}}}Timestamp")
    if token is None or timestamp is None:
        fail()
    now = datetime.datetime.now(datetime.timezone.utc)
    expires = datetime.datetime.fromisoformat(timestamp.findtext(f"{{{WSU}}}Expires").replace("Z", "+00:00"))
    if expires < now:
        fail()
    password = token.find(f"{{{WSSE}}}Password")
    if token.findtext(f"{{{WSSE}}}Username") != USER or password is None:
        fail()
    kind = password.get("Type", "").rsplit("#", 1)[-1]
    if kind == "PasswordText":
        ok = password.text == PASSWORD
    elif kind == "PasswordDigest":
        nonce = base64.b64decode(token.findtext(f"{{{WSSE}}}Nonce"))
        created = token.findtext(f"{{{WSU}}}Created")
        expected = base64.b64encode(hashlib.sha1(nonce + created.encode() + PASSWORD.encode()).digest()).decode()
        ok = password.text == expected
    else:
        ok = False
    if not ok:
        fail()


class QuietHandler(WSGIRequestHandler):
    handled = 0

    def handle(self):
        QuietHandler.handled += 1
        super().handle()

    def log_message(self, format, *args):
        pass


def application(protocol):
    return Application([ShopService], tns=NAMESPACE, name="ShopService",
                       in_protocol=protocol(validator="lxml"), out_protocol=protocol())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lifetime", type=float, default=60)
    parser.add_argument("--max-requests", type=int, default=100)
    options = parser.parse_args()
    # spyne logs every Fault it raises with a traceback; the faults here are on purpose.
    logging.getLogger("spyne").setLevel(logging.CRITICAL)

    mounter = WsgiMounter({"soap11": WsgiApplication(application(Soap11)), "soap12": WsgiApplication(application(Soap12))})
    server = make_server("127.0.0.1", 0, mounter, handler_class=QuietHandler)
    server.timeout = 1

    stop = threading.Event()
    threading.Timer(options.lifetime, stop.set).start()

    def watch_stdin():
        sys.stdin.read()
        stop.set()

    threading.Thread(target=watch_stdin, daemon=True).start()

    print(f"PORT {server.server_port}", flush=True)
    while not stop.is_set() and QuietHandler.handled < options.max_requests:
        server.handle_request()
    server.server_close()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
