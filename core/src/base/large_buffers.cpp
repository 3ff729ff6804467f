// detail::allocateBuffer / freeBuffer of uninitialized_vector.h (which says why), and the cache
// of freed large blocks that keepFreedMemoryForReuse turns on (memory_reuse.h).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <new>
#include <vector>

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

// Freed large blocks kept for the next request of about their size. A forward pass allocates
// its maps afresh (two 151 MB blocks for BERT-base at n = 512) and the previous pass's are
// freed just before or after: without the cache every pass had the kernel map, clear and fault
// them in again, 19 % of the pass (tests/bench/README.md ▸ Forward pass profile).
class BlockCache {
public:
    void enable() {
        const std::lock_guard lock(m_mutex);
        m_enabled = true;
    }

    // A kept block of at least `bytes` and at most twice that (so a short request does not pin
    // a long one), or null.
    void* take(std::size_t bytes) {
        const std::lock_guard lock(m_mutex);
        auto best = m_blocks.end();
        for (auto it = m_blocks.begin(); it != m_blocks.end(); ++it) {
            if (it->bytes >= bytes && it->bytes / 2 <= bytes &&
                (best == m_blocks.end() || it->bytes < best->bytes)) {
                best = it;
            }
        }
        if (best == m_blocks.end()) {
            return nullptr;
        }
        void* p = best->p;
        m_kept -= best->bytes;
        m_blocks.erase(best);
        return p;
    }

    // Keeps the block when the cache is on and it fits the budget (the oldest blocks go first);
    // false: the caller frees it.
    bool keep(void* p, std::size_t bytes) {
        const std::lock_guard lock(m_mutex);
        if (!m_enabled || bytes > kBudget) {
            return false;
        }
        while (m_kept + bytes > kBudget || m_blocks.size() >= kMaxBlocks) {
            std::free(m_blocks.front().p);
            m_kept -= m_blocks.front().bytes;
            m_blocks.erase(m_blocks.begin());
        }
        m_blocks.push_back({p, bytes});
        m_kept += bytes;
        return true;
    }

private:
    // A pass's logits, probabilities and head outputs, and the next pass's while the view still
    // shows the last one.
    static constexpr std::size_t kMaxBlocks = 6;
    static constexpr std::size_t kBudget = std::size_t{1} << 30;

    struct Block {
        void* p;
        std::size_t bytes;
    };

    std::mutex m_mutex;
    bool m_enabled = false;
    std::vector<Block> m_blocks;  // oldest first
    std::size_t m_kept = 0;
};

BlockCache& blockCache() {
    static BlockCache* cache = new BlockCache;  // never destroyed: buffers may outlive statics
    return *cache;
}

std::size_t roundedLarge(std::size_t bytes) {
    if (bytes > std::numeric_limits<std::size_t>::max() - kHugePage) {
        throw std::bad_alloc();
    }
    return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}

}  // namespace

void* allocateBuffer(std::size_t bytes) {
    if (bytes < kLarge) {
        void* p = std::malloc(bytes == 0 ? 1 : bytes);
        if (p == nullptr) {
            throw std::bad_alloc();
        }
        return p;
    }
    const std::size_t rounded = roundedLarge(bytes);
    if (void* kept = blockCache().take(rounded)) {
        return kept;
    }
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

void freeBuffer(void* p, std::size_t bytes) noexcept {
    if (p == nullptr || bytes < kLarge) {
        std::free(p);
        return;
    }
    // The block's own size is not known here (a cached block may be larger than `bytes`
    // rounded), so the cache records the rounded request; take() hands out only blocks at
    // least that large, which every kept block is.
    bool kept = false;
    try {
        kept = blockCache().keep(p, roundedLarge(bytes));
    } catch (...) {  // a failed push_back: free the block instead
        kept = false;
    }
    if (!kept) {
        std::free(p);
    }
}

void keepFreedBuffers() {
    blockCache().enable();
}

}  // namespace attnscope::detail
