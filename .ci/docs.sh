#!/usr/bin/env bash
# Builds the DocC catalog from freshly emitted symbol graphs and fails on any warning.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A scratch path of its own: symbol graphs are only written when the module is compiled.
# ResourceLoader first, so that building ResourceLoaderTesting then compiles (and emits) only it.
for target in ResourceLoader ResourceLoaderTesting; do
  swift build --scratch-path "$work/build" --target "$target" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$work/symbol-graphs/$target" >/dev/null
  python3 .ci/check_doc_comments.py "$work/symbol-graphs/$target"
done
docc convert Sources/ResourceLoader/ResourceLoader.docc \
  --additional-symbol-graph-dir "$work/symbol-graphs/ResourceLoader" \
  --output-dir "${DOCS_OUTPUT:-$work/ResourceLoader.doccarchive}" \
  --fallback-display-name ResourceLoader \
  --fallback-bundle-identifier org.resourceloader.ResourceLoader \
  --warnings-as-errors

# The optional integrations, built with their traits on in a scratch path of their own: every
# public symbol documented, and DocC reads their comments without a warning. Building a target
# also emits its dependencies' symbol graphs, so only the target's own are kept.
integration_traits="Logging,Metrics,Tracing"
for target in ResourceLoaderLogging ResourceLoaderMetrics ResourceLoaderTracing; do
  swift build --scratch-path "$work/build-traits" --traits "$integration_traits" --target "$target" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$work/all-graphs/$target" >/dev/null
  mkdir -p "$work/symbol-graphs/$target"
  cp "$work/all-graphs/$target/$target".*symbols.json "$work/symbol-graphs/$target/"
  cp "$work/all-graphs/$target/$target"@*.symbols.json "$work/symbol-graphs/$target/" 2>/dev/null || true
  python3 .ci/check_doc_comments.py "$work/symbol-graphs/$target"
  docc convert \
    --additional-symbol-graph-dir "$work/symbol-graphs/$target" \
    --output-dir "$work/$target.doccarchive" \
    --fallback-display-name "$target" \
    --fallback-bundle-identifier "org.resourceloader.$target" \
    --warnings-as-errors >/dev/null
done
echo "DocC catalog built without warnings."
