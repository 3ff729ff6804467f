// FloatBuffer (base/uninitialized_vector.h): small buffers from malloc, large ones 2 MiB-aligned
// for transparent huge pages; both read and written like any vector, sizes checked.
#include <cstdint>
#include <limits>
#include <new>

#include <gtest/gtest.h>

#include "attnscope/base/uninitialized_vector.h"

namespace attnscope {
namespace {

TEST(FloatBuffer, LargeBuffersStartOnAHugePageAndHoldTheirValues) {
    FloatBuffer big;
    big.resize((std::size_t{40} << 20) / sizeof(float) + 3);  // 40 MiB and a bit: not whole pages
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data()) % (std::size_t{2} << 20), 0u);
    for (std::size_t i = 0; i < big.size(); i += 4096) {
        big[i] = static_cast<float>(i);
    }
    big.back() = -1.0f;
    EXPECT_EQ(big[4096 * 7], 4096.0f * 7);
    EXPECT_EQ(big.back(), -1.0f);
    FloatBuffer copy = big;  // copies through the same allocator
    EXPECT_EQ(copy[4096 * 7], 4096.0f * 7);
}

TEST(FloatBuffer, SmallAndEmptyBuffersWork) {
    FloatBuffer small(10, 2.5f);
    EXPECT_EQ(small[9], 2.5f);
    FloatBuffer none;
    none.resize(0);
    none.shrink_to_fit();
    EXPECT_TRUE(none.empty());
}

// (Only the overflow: a merely huge request aborts under AddressSanitizer by default.)
TEST(FloatBuffer, ImpossibleSizesThrowInsteadOfWrapping) {
    DefaultInitAllocator<float> a;
    EXPECT_THROW((void)a.allocate(std::numeric_limits<std::size_t>::max() / 2), std::bad_alloc);
}

}  // namespace
}  // namespace attnscope
