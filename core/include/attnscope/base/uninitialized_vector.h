// A std::vector<float> whose resize() leaves new elements unwritten.
//
// Why: a forward pass at n = 512 records ~320 MB of maps; std::vector's resize zero-filled them
// on the calling thread (≈ 220 ms: every page faulted and cleared, then the zeros overwritten)
// before the heads, running in parallel, wrote every float anyway. Left unwritten, each page is
// first touched by the head that fills it. The standard library has no such container; this is
// the usual allocator adaptor (default-initialisation instead of value-initialisation).
//
// It also takes large buffers (the full maps of a long sentence) in transparent huge pages:
// glibc maps every block of 32 MiB or more afresh (memory_reuse.h), and on these VMs each first
// touch of a 4 KiB page cost 15–35 µs, so an 8 B model's 2 GiB of maps at n = 512 spent longer
// in page faults than in its attention. With 2 MiB pages, 1 GiB is touched in 0.15–0.6 s
// instead of 8–9 s.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace attnscope {

namespace detail {

// Storage for `bytes`: malloc's, or for 32 MiB and more 2 MiB-aligned and advised for
// transparent huge pages (Linux's madvise; elsewhere, or if the kernel says no, plain pages).
// Throws std::bad_alloc. freeBuffer takes back what allocateBuffer gave, with the same size.
void* allocateBuffer(std::size_t bytes);
void freeBuffer(void* p, std::size_t bytes) noexcept;
// From now on freeBuffer keeps large blocks (up to 1 GiB in all) for allocateBuffer to hand out
// again, already faulted in (keepFreedMemoryForReuse, memory_reuse.h, calls it).
void keepFreedBuffers();

}  // namespace detail

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U>;
    };

    using std::allocator<T>::allocator;

    T* allocate(std::size_t n) {
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) {
            throw std::bad_array_new_length();
        }
        return static_cast<T*>(detail::allocateBuffer(n * sizeof(T)));
    }

    void deallocate(T* p, std::size_t n) noexcept { detail::freeBuffer(p, n * sizeof(T)); }

    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }

    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

// Read and written like std::vector<float>; only resize(n) without a value skips the fill.
using FloatBuffer = std::vector<float, DefaultInitAllocator<float>>;

}  // namespace attnscope
