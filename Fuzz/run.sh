#!/usr/bin/env bash
# Builds the libFuzzer harnesses and runs one of them (Linux; needs a Swift toolchain with
# libFuzzer, which the swift.org Linux toolchains ship).
#
#   Fuzz/run.sh [HARNESS] [SECONDS]   build, then fuzz HARNESS for SECONDS (default: xml-tree, 600)
#   Fuzz/run.sh build                 build every harness, run none
#   Fuzz/run.sh replay [HARNESS]      run each committed corpus input once (default: all harnesses)
#
# HARNESS is one of: xml-tree, xml-decoder, soap, json, xml-diff, json-diff, http-cache.
#
# Each harness is the library compiled once with -sanitize=fuzzer,address, linked with the one
# entry point Fuzz/Sources/Fuzzer/main.swift and the checks shared with the tests
# (Tests/ResourceLoaderTests/Reliability/FuzzEntryPoints.swift), as $FUZZ_DIR/bin/HARNESS: the
# binary's file name picks the checks. New inputs go to a working corpus
# under $FUZZ_DIR (default .build-fuzz/ at the repository root), seeded read-only from
# Fuzz/corpus/HARNESS/; crashes, leaks and timeouts are written to $FUZZ_DIR/artifacts/HARNESS/.
# Minimise a crasher with `$FUZZ_DIR/bin/HARNESS -minimize_crash=1 -runs=10000 FILE`, fix the bug,
# and commit the minimised input under Fuzz/corpus/HARNESS/ so that the replay test keeps it fixed.
set -euo pipefail

# Swift's own crash backtracer fights AddressSanitizer's; let ASan and libFuzzer report.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

root=$(cd "$(dirname "$0")/.." && pwd)
out=${FUZZ_DIR:-$root/.build-fuzz}
harnesses=(xml-tree xml-decoder soap json xml-diff json-diff http-cache)

check_harness() {
    if [[ " ${harnesses[*]} " != *" $1 "* ]]; then
        echo "unknown harness '$1' (expected one of: ${harnesses[*]})" >&2
        exit 64
    fi
}

# -package-name: the library uses `package` access (shared with its optional integrations).
# The library imports the system zlib through the header-only target CResourceLoaderZlib, for
# which SwiftPM makes a module map; here one is written under $out/modules (zlib_module below).
flags=(-parse-as-library -O -g -sanitize=fuzzer,address -swift-version 6 -package-name ResourceLoader
    -Xcc -fmodule-map-file="$out/modules/CResourceLoaderZlib/module.modulemap")
shared=("$root/Tests/ResourceLoaderTests/Reliability/FuzzEntryPoints.swift"
    "$root/Tests/ResourceLoaderTests/Reliability/FuzzDifferential.swift"
    "$root/Tests/ResourceLoaderTests/Reliability/JSONDifferential.swift"
    "$root/Tests/ResourceLoaderTests/Reliability/FuzzHTTPCache.swift")
# One entry point for every harness: the binary's file name picks the harness.
main="$root/Fuzz/Sources/Fuzzer/main.swift"

zlib_module() {
    mkdir -p "$out/modules/CResourceLoaderZlib"
    printf 'module CResourceLoaderZlib {\n    header "%s"\n    link "z"\n    export *\n}\n' \
        "$root/Sources/CResourceLoaderZlib/include/CResourceLoaderZlib.h" \
        >"$out/modules/CResourceLoaderZlib/module.modulemap"
}

build_library() {
    mkdir -p "$out/modules" "$out/obj"
    zlib_module
    local sources
    mapfile -t sources < <(find "$root/Sources/ResourceLoader" -name '*.swift' | sort)
    local object="$out/obj/ResourceLoader.o"
    if [[ -f $object ]] && [[ -z $(find "$root/Sources/ResourceLoader" -name '*.swift' -newer "$object") ]]; then
        return
    fi
    echo "building ResourceLoader for fuzzing" >&2
    swiftc "${flags[@]}" -module-name ResourceLoader -wmo -emit-module \
        -emit-module-path "$out/modules/ResourceLoader.swiftmodule" \
        -c "${sources[@]}" -o "$object"
}

build_harness() {
    local name=$1
    check_harness "$name"
    mkdir -p "$out/bin"
    local binary="$out/bin/$name"
    local current=0
    if [[ -f $binary ]] && [[ $binary -nt $out/obj/ResourceLoader.o ]] && [[ $binary -nt $main ]]; then
        current=1
        local file
        for file in "${shared[@]}"; do
            [[ $binary -nt $file ]] || current=0
        done
    fi
    [[ $current == 1 ]] && return
    echo "building $name" >&2
    swiftc "${flags[@]}" -module-name Fuzzer -I "$out/modules" \
        -use-ld=lld "$main" "${shared[@]}" "$out/obj/ResourceLoader.o" -lz -o "$binary"
}

run_harness() {
    local name=$1 seconds=$2
    mkdir -p "$out/corpus/$name" "$out/artifacts/$name" "$out/logs/$name"
    local dictionary=()
    [[ -f $root/Fuzz/dictionaries/$name.dict ]] && dictionary=(-dict="$root/Fuzz/dictionaries/$name.dict")
    # xml-diff runs libxml2 through FoundationXML, which leaks ~72 bytes for every malformed
    # document (see Fuzz/lsan-suppressions.txt). libFuzzer then runs a full leak check after
    # almost every input (20 inputs a second instead of 700), so that harness fuzzes without the
    # per-input check; the others, which run the same parser of ours, keep it.
    local leaks=()
    [[ $name == xml-diff ]] && leaks=(-detect_leaks=0)
    # -jobs=1 -workers=1: one fuzzing process, whose output goes to $out/logs/NAME/fuzz-0.log
    # while it runs and is copied to standard error when it ends.
    cd "$out/logs/$name"
    LSAN_OPTIONS="suppressions=$root/Fuzz/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
    "$out/bin/$name" -max_total_time="$seconds" -jobs=1 -workers=1 -rss_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$out/artifacts/$name/" "${dictionary[@]}" "${leaks[@]}" \
        "$out/corpus/$name" "$root/Fuzz/corpus/$name"
}

replay_harness() {
    local name=$1
    local files=("$root/Fuzz/corpus/$name"/*)
    LSAN_OPTIONS="suppressions=$root/Fuzz/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
    "$out/bin/$name" -runs=0 -rss_limit_mb=2048 -timeout=10 "${files[@]}"
}

command=${1:-xml-tree}
case $command in
    build)
        build_library
        for name in "${harnesses[@]}"; do build_harness "$name"; done
        ;;
    replay)
        build_library
        for name in ${2:-${harnesses[*]}}; do build_harness "$name"; replay_harness "$name"; done
        ;;
    *)
        check_harness "$command"
        build_library
        build_harness "$command"
        run_harness "$command" "${2:-600}"
        ;;
esac
