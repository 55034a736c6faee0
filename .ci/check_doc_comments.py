#!/usr/bin/env python3
"""Fails when a public symbol of the given symbol graphs has no doc comment of its own.

Symbols the compiler synthesises (default implementations inherited from the standard library,
such as `!=` or `hash(into:)`) carry no source location in this module and are skipped.
"""
import json
import pathlib
import sys

missing = []
checked = 0
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.symbols.json")):
    graph = json.loads(path.read_text())
    for symbol in graph["symbols"]:
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        location = symbol.get("location", {}).get("uri", "")
        if "/Sources/" not in location:
            continue  # synthesised, or declared in another module
        checked += 1
        if not symbol.get("docComment", {}).get("lines"):
            title = ".".join(symbol["pathComponents"])
            line = symbol["location"]["position"]["line"] + 1
            missing.append(f"{location.split('/Sources/')[-1]}:{line}: {title}")

if missing:
    print("Public symbols without a doc comment:")
    print("\n".join(f"  {m}" for m in missing))
    sys.exit(1)
print(f"All {checked} public symbols have doc comments.")
