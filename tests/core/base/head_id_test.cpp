// Head lists as users type them ("0-1, 2-3").
#include "attnscope/base/head_id.h"

#include <gtest/gtest.h>

#include "attnscope/base/error.h"

namespace attnscope {
namespace {

TEST(HeadId, ParsesLists) {
    EXPECT_EQ(parseHeadList("3-7"), (std::vector<HeadId>{{3, 7}}));
    EXPECT_EQ(parseHeadList("0-1, 2-3 ,11-11"), (std::vector<HeadId>{{0, 1}, {2, 3}, {11, 11}}));
    EXPECT_EQ((HeadId{4, 5}).toString(), "4-5");
}

TEST(HeadId, RejectsNonsense) {
    for (const char* bad : {"", "3", "3-", "-1-2", "a-b", "1-2,", "1-2-3", "1--2"}) {
        EXPECT_THROW(parseHeadList(bad), InvalidArgument) << bad;
    }
}

// Per-head arrays are layer-major; the index is computed in 64 bits so a caller that scales it by
// a map size does not overflow int first.
TEST(HeadId, IndexIsLayerMajor) {
    EXPECT_EQ(headIndex({0, 0}, 12), 0);
    EXPECT_EQ(headIndex({0, 11}, 12), 11);
    EXPECT_EQ(headIndex({1, 0}, 12), 12);
    EXPECT_EQ(headIndex({3, 7}, 12), 43);
    static_assert(headIndex({2, 1}, 4) == 9);
    const std::ptrdiff_t big = headIndex({1 << 20, 5}, 1 << 12);
    EXPECT_EQ(big, (std::ptrdiff_t{1} << 32) + 5);
}

}  // namespace
}  // namespace attnscope
