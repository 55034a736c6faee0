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

# The WSDL reader, with its own catalog. Building it emits ResourceLoader's graphs again, so only
# its own are kept.
swift build --scratch-path "$work/build" --target ResourceLoaderWSDL \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$work/all-graphs/ResourceLoaderWSDL" >/dev/null
mkdir -p "$work/symbol-graphs/ResourceLoaderWSDL"
cp "$work/all-graphs/ResourceLoaderWSDL/ResourceLoaderWSDL".*symbols.json "$work/symbol-graphs/ResourceLoaderWSDL/"
cp "$work/all-graphs/ResourceLoaderWSDL/ResourceLoaderWSDL"@*.symbols.json "$work/symbol-graphs/ResourceLoaderWSDL/" 2>/dev/null || true
python3 .ci/check_doc_comments.py "$work/symbol-graphs/ResourceLoaderWSDL"
docc convert Sources/ResourceLoaderWSDL/ResourceLoaderWSDL.docc \
  --additional-symbol-graph-dir "$work/symbol-graphs/ResourceLoaderWSDL" \
  --output-dir "$work/ResourceLoaderWSDL.doccarchive" \
  --fallback-display-name ResourceLoaderWSDL \
  --fallback-bundle-identifier org.resourceloader.ResourceLoaderWSDL \
  --warnings-as-errors >/dev/null

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

# The optional integrations compile only with their traits: their symbol graphs come from the
# all-traits build (.build-traits, which .ci/run has built by now; built here if missing). Every
# public symbol needs a doc comment, and DocC must build their documentation without a warning.
swift package --scratch-path .build-traits --enable-all-traits -Xswiftc -warnings-as-errors dump-symbol-graph >/dev/null
graphs=$(swift build --scratch-path .build-traits --enable-all-traits --show-bin-path)/../symbolgraph
for module in ResourceLoaderAsyncHTTPClient ResourceLoaderXMLSignature; do
  mkdir -p "$work/symbol-graphs/$module"
  cp "$graphs/$module".symbols.json "$work/symbol-graphs/$module/"
  cp "$graphs/$module"@*.symbols.json "$work/symbol-graphs/$module/" 2>/dev/null || true
  python3 .ci/check_doc_comments.py "$work/symbol-graphs/$module"
  docc convert --additional-symbol-graph-dir "$work/symbol-graphs/$module" \
    --output-dir "$work/$module.doccarchive" \
    --fallback-display-name "$module" \
    --fallback-bundle-identifier "org.resourceloader.$module" \
    --warnings-as-errors
  echo "$module: documentation built without warnings."
done
