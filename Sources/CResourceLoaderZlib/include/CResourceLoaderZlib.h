// The system zlib, for ResourceLoader's content decoder (gzip and deflate response bodies).
//
// zlib's initialisers are macros that pass the library's version and the size of z_stream, and
// Swift does not import function-like macros, so small inline functions wrap them here. The
// library itself is linked by the target's `linkedLibrary("z")`; on Apple platforms zlib is part
// of the SDK, on Linux it comes from the zlib development package (zlib1g-dev on Debian).
#ifndef C_RESOURCE_LOADER_ZLIB_H
#define C_RESOURCE_LOADER_ZLIB_H

#include <zlib.h>

/// `inflateInit2(stream, windowBits)`: 15 for a zlib stream (RFC 1950), 16 + 15 for gzip
/// (RFC 1952), -15 for raw deflate (RFC 1951).
static inline int CResourceLoaderZlib_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

/// `deflateInit2(...)`, which the tests and benchmarks use to make compressed bodies.
static inline int CResourceLoaderZlib_deflateInit2(z_streamp stream, int level, int method, int windowBits,
                                                   int memLevel, int strategy) {
    return deflateInit2(stream, level, method, windowBits, memLevel, strategy);
}

#endif
