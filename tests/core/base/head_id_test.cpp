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

}  // namespace
}  // namespace attnscope
