#ifndef MALLOC_COUNTER_H
#define MALLOC_COUNTER_H
#include <stdint.h>

/// Number of successful allocations (malloc, calloc, realloc to a new block, posix_memalign,
/// aligned_alloc, memalign) in the whole process since it started.
uint64_t malloc_counter_allocations(void);
/// Bytes requested by those allocations.
uint64_t malloc_counter_bytes(void);
/// 1 when the counters are live (glibc), 0 when allocations are not counted on this platform.
int malloc_counter_available(void);
/// Keeps freed memory in the process (glibc's mallopt: no trimming, no mmap for large blocks), so
/// that after a warm-up run the timed runs take no page faults; does nothing elsewhere.
void malloc_counter_keep_memory(void);

#endif
