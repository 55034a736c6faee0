#!/usr/bin/env bash
# Proves that, with the default traits, neither the root package nor a package that depends on it
# resolves any package: every dependency of the root package is used only through target
# dependencies guarded by a trait that is off by default (`condition: .when(traits: [...])`).
#
# Works on a copy of the source tree without any build folder (a worktree's own .build would hide
# a checkout), then on a tiny downstream package next to it that depends on the copy by path. The
# root package is resolved, the downstream package built (which builds the root's products too).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Tracked and new files, as a clean clone would have them (ignored files, such as .build, stay out).
mkdir "$work/ResourceLoader"
git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - 2>/dev/null | tar -xf - -C "$work/ResourceLoader"

mkdir -p "$work/Downstream/Sources/Downstream"
cat > "$work/Downstream/Package.swift" <<'MANIFEST'
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Downstream",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "ResourceLoader", path: "../ResourceLoader")],
    targets: [
        .target(
            name: "Downstream",
            dependencies: [
                .product(name: "ResourceLoader", package: "ResourceLoader"),
                .product(name: "ResourceLoaderAsyncHTTPClient", package: "ResourceLoader"),
            ]
        ),
    ]
)
MANIFEST
cat > "$work/Downstream/Sources/Downstream/Downstream.swift" <<'SOURCE'
import ResourceLoader
import ResourceLoaderAsyncHTTPClient

/// A value that uses the root package, so that building this package builds it.
public let options = TransferOptions()
SOURCE

fail=0
check() {
  local name=$1 dir=$2 action=$3
  local deps
  deps=$(swift package --package-path "$dir" show-dependencies --format flatlist 2>&1)
  # The downstream package lists its path dependency, ResourceLoader, and must list nothing else.
  local others
  others=$(printf '%s\n' "$deps" | grep -v -i -x -e 'resourceloader' -e '' || true)
  if [ -n "$others" ]; then
    echo "FAIL: $name resolves packages with the default traits:" >&2
    printf '%s\n' "$others" >&2
    fail=1
  fi
  if [ "$action" = build ]; then
    swift build --package-path "$dir" >/dev/null
  else
    swift package --package-path "$dir" resolve >/dev/null
  fi
  if [ -e "$dir/.build/checkouts" ] && [ -n "$(ls -A "$dir/.build/checkouts")" ]; then
    echo "FAIL: $name checked out packages with the default traits:" >&2
    ls -A "$dir/.build/checkouts" >&2
    fail=1
  fi
  if [ -e "$dir/Package.resolved" ] && grep -q '"identity"' "$dir/Package.resolved"; then
    echo "FAIL: $name wrote a Package.resolved that pins packages:" >&2
    cat "$dir/Package.resolved" >&2
    fail=1
  fi
  [ "$fail" = 0 ] && echo "$name: no package resolved or checked out with the default traits."
}

check "the root package" "$work/ResourceLoader" resolve
check "a package that depends on it by path" "$work/Downstream" build
exit "$fail"
