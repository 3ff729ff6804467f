#include "attnscope/base/memory_reuse.h"

#include <cstdlib>  // defines __GLIBC__ on glibc, which the tests below need

#include "attnscope/base/uninitialized_vector.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attnscope {

void keepFreedMemoryForReuse() {
#if defined(__GLIBC__)
    // 32 MiB is the most mallopt accepts (glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit): larger
    // blocks (a long sentence's full maps) still get their own mappings, so one outsized request
    // does not pin its memory in the heap for good.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    // Blocks of 32 MiB and more (the maps of a long sentence) are kept by the buffers' own cache.
    detail::keepFreedBuffers();
}

}  // namespace attnscope
