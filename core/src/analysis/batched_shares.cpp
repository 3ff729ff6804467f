#include "attnscope/analysis/batched_shares.h"

#include <functional>
#include <utility>

namespace attnscope::analysis {

ShareExecutor batchedShares(ShareExecutor run, ops::ProductBatch& batch) {
    return [run = std::move(run), &batch](std::size_t n,
                                          const std::function<void(std::size_t)>& task) {
        run(n, [&task, &batch](std::size_t share) {
            const ops::ProductBatch::Member member(batch);
            task(share);
        });
    };
}

}  // namespace attnscope::analysis
