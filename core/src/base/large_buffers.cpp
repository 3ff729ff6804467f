// detail::allocateBuffer / freeBuffer of uninitialized_vector.h (which says why).
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>

#include "attnscope/base/uninitialized_vector.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace attnscope::detail {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
// glibc's largest mmap threshold (memory_reuse.cpp): smaller blocks come back from the heap,
// already touched, and gain nothing from huge pages.
constexpr std::size_t kLarge = std::size_t{32} << 20;

}  // namespace

void* allocateBuffer(std::size_t bytes) {
    if (bytes < kLarge) {
        void* p = std::malloc(bytes == 0 ? 1 : bytes);
        if (p == nullptr) {
            throw std::bad_alloc();
        }
        return p;
    }
    if (bytes > std::numeric_limits<std::size_t>::max() - kHugePage) {
        throw std::bad_alloc();
    }
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p == nullptr) {
        throw std::bad_alloc();
    }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Advice only: where transparent huge pages are off, the buffer keeps 4 KiB pages.
    (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}

void freeBuffer(void* p, std::size_t) noexcept {
    std::free(p);
}

}  // namespace attnscope::detail
