// Corpus jobs with their sentences' weight products batched (ops/product_batch.h): every share
// runs as a member of one ProductBatch, so the passes of many shares meet in each product. The
// analyses' results do not depend on the shares (each says so), and each pass keeps its bits,
// so a job run this way gives exactly what it gives one share at a time.
#pragma once

#include <cstddef>

#include "attnscope/analysis/treebank_scoring.h"
#include "attnscope/ops/product_batch.h"

namespace attnscope::analysis {

// Shares of a batched job per compute thread: enough rows in each product to reach the FMA
// units' peak with sentences of 20–30 tokens, few enough that the waiting passes' maps fit in
// memory.
inline constexpr std::size_t kBatchedSharesPerThread = 8;

// `run`, each share a member of `batch` while it runs. `run` must run the shares concurrently
// (one thread each): a member waits for the others' products.
ShareExecutor batchedShares(ShareExecutor run, ops::ProductBatch& batch);

}  // namespace attnscope::analysis
