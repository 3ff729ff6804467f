// A std::vector<float> whose resize() leaves new elements unwritten.
//
// Why: a forward pass at n = 512 records ~320 MB of maps; std::vector's resize zero-filled them
// on the calling thread (≈ 220 ms: every page faulted and cleared, then the zeros overwritten)
// before the heads, running in parallel, wrote every float anyway. Left unwritten, each page is
// first touched by the head that fills it. The standard library has no such container; this is
// the usual allocator adaptor (default-initialisation instead of value-initialisation).
#pragma once

#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace attnscope {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U>;
    };

    using std::allocator<T>::allocator;

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
