"""A real SOAP peer for ResourceLoader's integration test: a spyne document/literal service.

Serves one operation, getUserDetails, in the target namespace urn:example:users, on 127.0.0.1
at a port the system picks, and prints "PORT <n>" on its first line once it listens. The WSDL
is at /?wsdl. User ID 99999 gets a Client fault (spyne writes it as soap11env:Client.UnknownUser),
any other ID a user.

It stops on its own: after --lifetime seconds (default 60), when its standard input closes
(the test that started it has ended), or after --max-requests requests (default 100).

Needs: pip install spyne lxml
"""

import argparse
import logging
import os
import sys
import threading
from wsgiref.simple_server import WSGIRequestHandler, make_server

from spyne import Application, ComplexModel, Fault, ServiceBase, Unicode, rpc
from spyne.protocol.soap import Soap11
from spyne.server.wsgi import WsgiApplication

NAMESPACE = "urn:example:users"


class User(ComplexModel):
    __namespace__ = NAMESPACE
    firstName = Unicode
    lastName = Unicode
    email = Unicode
    city = Unicode


class UserService(ServiceBase):
    @rpc(Unicode, _returns=User)
    def getUserDetails(ctx, userID):
        if userID == "99999":
            raise Fault(faultcode="Client.UnknownUser", faultstring="Unknown user 99999")
        return User(firstName="Fred", lastName="Bloggs", email="fred@example.com", city=f"London ({userID})")


class QuietHandler(WSGIRequestHandler):
    handled = 0

    def handle(self):
        QuietHandler.handled += 1
        super().handle()

    def log_message(self, format, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lifetime", type=float, default=60)
    parser.add_argument("--max-requests", type=int, default=100)
    options = parser.parse_args()
    # spyne logs every Fault it raises with a traceback; the faults here are on purpose.
    logging.getLogger("spyne").setLevel(logging.CRITICAL)

    application = Application(
        [UserService],
        tns=NAMESPACE,
        name="UserService",
        in_protocol=Soap11(validator="lxml"),
        out_protocol=Soap11(),
    )
    server = make_server("127.0.0.1", 0, WsgiApplication(application), handler_class=QuietHandler)
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
    # The timer and stdin threads may still be waiting: leave without them.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
