// Counts allocations by defining malloc and friends in the executable. The dynamic linker
// resolves every library's calls (the Swift runtime, Foundation, libxml2) to these, which
// forward to glibc's own entry points: no dlsym, so no recursion at start-up.
#include "MallocCounter.h"
#include <stddef.h>

#if defined(__linux__) && defined(__GLIBC__)
#include <errno.h>
#include <malloc.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static uint64_t allocations;
static uint64_t bytes;

static inline void count(size_t size) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&bytes, size, __ATOMIC_RELAXED);
}

void *malloc(size_t size) {
    void *p = __libc_malloc(size);
    if (p) count(size);
    return p;
}

void *calloc(size_t n, size_t size) {
    void *p = __libc_calloc(n, size);
    if (p) count(n * size);
    return p;
}

void *realloc(void *old, size_t size) {
    void *p = __libc_realloc(old, size);
    if (p && p != old) count(size);
    return p;
}

void free(void *p) { __libc_free(p); }

void *memalign(size_t alignment, size_t size) {
    void *p = __libc_memalign(alignment, size);
    if (p) count(size);
    return p;
}

void *aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *p = memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

uint64_t malloc_counter_allocations(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }
uint64_t malloc_counter_bytes(void) { return __atomic_load_n(&bytes, __ATOMIC_RELAXED); }
int malloc_counter_available(void) { return 1; }
void malloc_counter_keep_memory(void) {
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
}

#else
uint64_t malloc_counter_allocations(void) { return 0; }
uint64_t malloc_counter_bytes(void) { return 0; }
int malloc_counter_available(void) { return 0; }
void malloc_counter_keep_memory(void) {}
#endif
