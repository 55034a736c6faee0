"""A real SOAP peer for the tests of code generated from a WSDL: a spyne service on 127.0.0.1.

Serves the application "Warehouse" (target namespace urn:example:warehouse) over SOAP 1.1 at
/soap11 on a port the system picks (printed as "PORT <n>" on the first line once it listens);
its WSDL is at /soap11?wsdl. Requests are validated by lxml against the service's own schema.

- echoOrder(order): answers the order exactly as spyne read it, every value.
- findItem(sku): the item of that SKU ("A-1" or "B-2"); any other SKU gets a Client.NotFound
  Fault whose detail is an ItemNotFound element (the SKU asked for and the SKUs there are).
- total(prices): the sum of the prices, as a decimal.
- reversePen(pen): the pen's animals in reverse order, each of its own type (Animal, Dog extends
  Animal, Puppy extends Dog), so derived types travel with xsi:type both ways.
- describePen(pen): how spyne read each animal: its class, name and own fields.
- whoAmI(greeting): requires a WS-Security UsernameToken (user "ada", password "Pa55-<&>-word",
  as text or as a digest, with a Timestamp that has not expired) and answers
  "hello ada: <greeting>"; a missing or wrong token gets a Client.FailedAuthentication Fault.
- stock(sku): requires a Tenant header block (element Tenant, child name) and answers
  "<tenant>/<sku>", with a Quota header block in the response (remaining 41, resets
  2026-12-01); without the Tenant, a Client.NoTenant Fault.

It stops on its own: after --lifetime seconds (default 60), when its standard input closes, or
after --max-requests requests (default 100).

Needs: pip install spyne lxml
"""

import argparse
import base64
import datetime
import decimal
import hashlib
import logging
import os
import sys
import threading
from wsgiref.simple_server import WSGIRequestHandler, make_server

from lxml import etree

from spyne import (Application, Array, Boolean, ByteArray, ComplexModel, Date, DateTime, Decimal, Enum, Fault,
                   Integer, ServiceBase, Unicode, XmlAttribute, rpc)
from spyne.protocol.soap import Soap11
from spyne.server.wsgi import WsgiApplication
from spyne.util.wsgi_wrapper import WsgiMounter

NAMESPACE = "urn:example:warehouse"
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
        ("gift", Boolean),
    ]


class Animal(ComplexModel):
    __namespace__ = NAMESPACE
    _type_info = [("tag", XmlAttribute(Unicode)), ("name", Unicode)]


class Dog(Animal):
    __namespace__ = NAMESPACE
    _type_info = [("barks", Boolean)]


class Puppy(Dog):
    __namespace__ = NAMESPACE
    _type_info = [("ageInWeeks", Integer)]


class Pen(ComplexModel):
    """Animals of any kind: each element may carry xsi:type."""
    __namespace__ = NAMESPACE
    _type_info = [("animals", Animal.customize(max_occurs="unbounded"))]


class ItemNotFound(Fault):
    """The detail of the fault findItem raises for an unknown SKU."""
    __namespace__ = NAMESPACE
    _type_info = [("sku", Unicode), ("known", Unicode(max_occurs="unbounded"))]

    def __init__(self, sku=None, known=()):
        # The detail is written as the schema declares it: one ItemNotFound element inside
        # detail (spyne would put the fields straight into the Fault element).
        detail = etree.Element(f"{{{NAMESPACE}}}ItemNotFound", nsmap={"tns": NAMESPACE})
        etree.SubElement(detail, f"{{{NAMESPACE}}}sku").text = sku
        for name in known:
            etree.SubElement(detail, f"{{{NAMESPACE}}}known").text = name
        super().__init__(faultcode="Client.NotFound", faultstring=f"no item {sku}", detail=detail)


class Tenant(ComplexModel):
    __namespace__ = NAMESPACE
    _type_info = [("name", Unicode)]


class Quota(ComplexModel):
    __namespace__ = NAMESPACE
    _type_info = [("remaining", Integer), ("resets", Date)]


ITEMS = {
    "A-1": LineItem(sku="A-1", quantity=2, price=decimal.Decimal("9.99")),
    "B-2": LineItem(sku="B-2", quantity=1, price=decimal.Decimal("12345678901234567890.0001")),
}


class WarehouseService(ServiceBase):
    @rpc(Order, _returns=Order)
    def echoOrder(ctx, order):
        return order

    @rpc(Unicode, _returns=LineItem, _throws=ItemNotFound)
    def findItem(ctx, sku):
        if sku not in ITEMS:
            raise ItemNotFound(sku=sku, known=sorted(ITEMS))
        return ITEMS[sku]

    @rpc(Pen, _returns=Pen)
    def reversePen(ctx, pen):
        return Pen(animals=list(reversed(pen.animals or [])))

    @rpc(Pen, _returns=Unicode)
    def describePen(ctx, pen):
        return ", ".join(f"{type(a).__name__} {a.name} #{a.tag}" + (f" barks={a.barks}" if isinstance(a, Dog) else "")
                         + (f" weeks={a.ageInWeeks}" if isinstance(a, Puppy) else "") for a in (pen.animals or []))

    @rpc(Decimal(max_occurs="unbounded"), _returns=Decimal)
    def total(ctx, prices):
        return sum(prices or [], decimal.Decimal(0))

    @rpc(Unicode, _returns=Unicode)
    def whoAmI(ctx, greeting):
        check_security(ctx)
        return f"hello {USER}: {greeting}"


class TenantService(ServiceBase):
    __in_header__ = Tenant
    __out_header__ = Quota

    @rpc(Unicode, _returns=Unicode)
    def stock(ctx, sku):
        tenant = ctx.in_header
        if tenant is None or not tenant.name:
            raise Fault(faultcode="Client.NoTenant", faultstring="a Tenant header is required")
        ctx.out_header = Quota(remaining=41, resets=datetime.date(2026, 12, 1))
        return f"{tenant.name}/{sku}"


def fail():
    raise Fault(faultcode="Client.FailedAuthentication", faultstring="The security token could not be authenticated")


def check_security(ctx):
    """A WS-Security UsernameToken Profile 1.1 check: text or digest password, and a live Timestamp."""
    security = ctx.in_document.find(f"./{{*}}Header/{{{WSSE}}}Security")
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


def application():
    return Application([WarehouseService, TenantService], tns=NAMESPACE, name="Warehouse",
                       in_protocol=Soap11(validator="lxml"), out_protocol=Soap11(polymorphic=True))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lifetime", type=float, default=60)
    parser.add_argument("--max-requests", type=int, default=100)
    options = parser.parse_args()
    # spyne logs every Fault it raises with a traceback; the faults here are on purpose.
    logging.getLogger("spyne").setLevel(logging.CRITICAL)

    server = make_server("127.0.0.1", 0, WsgiMounter({"soap11": WsgiApplication(application())}), handler_class=QuietHandler)
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
