"""An independent peer for multipart uploads: an HTTP server on 127.0.0.1 that parses each
request body with the `multipart` package from PyPI and answers with JSON of what it parsed.

Prints "PORT <n>" once listening. Stops when its standard input closes, or after --lifetime
seconds.

  POST /form        parses multipart/form-data; answers {"parts": [{"name", "filename",
                    "content_type", "size", "sha256", "value"}], "content_length",
                    "transfer_encoding"}; a parse error answers 400 with {"error"}.
  POST /body        reads the body; answers {"size", "sha256", "content_length", "transfer_encoding"}.
  POST /redirect/N  reads the body and answers N (307 or 308) with Location: /form.
  POST /sink        reads the body and discards it; answers {"size"}.
"""
import argparse
import hashlib
import itertools
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import multipart


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body_chunks(self):
        """Yields the request body in pieces, de-chunked when it is chunked."""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                line = self.rfile.readline(1024)
                size = int(line.split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return
                remaining = size
                while remaining:
                    piece = self.rfile.read(min(remaining, 1 << 16))
                    if not piece:
                        raise ValueError("chunked body cut short")
                    remaining -= len(piece)
                    yield piece
                self.rfile.readline(8)
        else:
            remaining = int(self.headers.get("Content-Length", "0"))
            while remaining:
                piece = self.rfile.read(min(remaining, 1 << 16))
                if not piece:
                    raise ValueError("body cut short")
                remaining -= len(piece)
                yield piece

    def answer(self, status, payload, extra=()):
        data = json.dumps(payload).encode()
        self.send_response(status)
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def framing(self):
        return {
            "content_length": self.headers.get("Content-Length"),
            "transfer_encoding": self.headers.get("Transfer-Encoding"),
        }

    def do_POST(self):
        if self.path == "/form":
            self.form()
        elif self.path.startswith("/redirect/"):
            for _ in self.body_chunks():
                pass
            self.answer(int(self.path.rsplit("/", 1)[1]), {}, [("Location", "/form")])
        elif self.path == "/sink":
            size = sum(len(piece) for piece in self.body_chunks())
            self.answer(200, {"size": size})
        else:
            digest = hashlib.sha256()
            size = 0
            for piece in self.body_chunks():
                digest.update(piece)
                size += len(piece)
            self.answer(200, dict(size=size, sha256=digest.hexdigest(), **self.framing()))

    do_PUT = do_POST

    def form(self):
        content_type, options = multipart.parse_options_header(self.headers.get("Content-Type", ""))
        if content_type != "multipart/form-data" or "boundary" not in options:
            for _ in self.body_chunks():
                pass
            self.answer(400, {"error": "not multipart/form-data"})
            return
        parts = []
        try:
            with multipart.PushMultipartParser(options["boundary"], strict=True) as parser:
                current = None
                for chunk in itertools.chain(self.body_chunks(), [b""]):
                    for event in parser.parse(chunk):
                        if isinstance(event, multipart.MultipartSegment):
                            current = {"segment": event, "digest": hashlib.sha256(), "size": 0, "head": b""}
                        elif event:
                            current["digest"].update(event)
                            current["size"] += len(event)
                            if len(current["head"]) < 4096:
                                current["head"] += event[: 4096 - len(current["head"])]
                        else:
                            segment = current["segment"]
                            value = None
                            if segment.filename is None and current["size"] <= 4096:
                                value = current["head"].decode("utf-8", "replace")
                            parts.append({
                                "name": segment.name,
                                "filename": segment.filename,
                                "content_type": segment.content_type,
                                "size": current["size"],
                                "sha256": current["digest"].hexdigest(),
                                "value": value,
                            })
                if not parser.closed:
                    raise multipart.ParserError("the multipart stream did not end")
        except (multipart.MultipartError, ValueError) as error:
            self.close_connection = True
            self.answer(400, {"error": str(error)})
            return
        self.answer(200, dict(parts=parts, **self.framing()))


def main():
    arguments = argparse.ArgumentParser()
    arguments.add_argument("--lifetime", type=float, default=300)
    options = arguments.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("PORT %d" % server.server_address[1], flush=True)
    stopper = threading.Thread(target=lambda: sys.stdin.read(), daemon=True)
    stopper.start()
    stopper.join(options.lifetime)
    server.shutdown()


if __name__ == "__main__":
    main()
