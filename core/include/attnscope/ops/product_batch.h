// Weight products shared between threads: several forward passes, each on its own thread, have
// their linear layers multiplied together, one product of all their rows per weight matrix.
//
// Why: a corpus job runs thousands of short sentences, and a product of 20–30 rows is bound by
// reading the weights (a BERT-base pass at n = 32 reads 340 MB for 5 GFLOP); the same product of
// 16 sentences' rows runs at the FMA units' peak. Batching inside the pass (packing sentences into
// one forward pass) would have needed a second forward pass; here the passes stay as they are,
// each on its own thread, and only ops::linear / linearRows meet: every output row of the weight
// product is its own chain of operations (weight_product.h), so each pass gets the very bits it
// gets alone. Norms, activations, attention and everything else run on each pass's own matrices.
//
// Use: one ProductBatch per job; every thread that runs passes holds a Member while it does. A
// product runs when every member is waiting for one: the members waiting for the earliest
// weight matrix in the model (and output range) are multiplied together on `threads` compute
// threads, on the thread that completed the set; the others wait on. Members must not block on
// each other outside the batch (a member waiting for another member's lock would wait forever).
// Passes on one thread (no Member) never wait. Set the compute threads (threads.h) to 1 for
// the job: a forward pass applies them to its thread, and members run side by side.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "attnscope/base/tensor.h"
#include "attnscope/ops/weight_types.h"

namespace attnscope::ops {

class ProductBatch {
public:
    // Joint products run on `threads` OpenMP threads (≥ 1).
    explicit ProductBatch(int threads);
    ProductBatch(const ProductBatch&) = delete;
    ProductBatch& operator=(const ProductBatch&) = delete;

    // While a Member lives, its thread's linear products go through the batch, and its own
    // OpenMP team is one thread (the passes' other work runs side by side on the members).
    class Member {
    public:
        explicit Member(ProductBatch& batch);
        ~Member();
        Member(const Member&) = delete;
        Member& operator=(const Member&) = delete;

    private:
        ProductBatch& m_batch;
        ProductBatch* m_previous;
        int m_previousThreads;
    };

    // How many joint products ran and how many requests they served (for tests and benchmarks).
    std::int64_t products() const;
    std::int64_t requests() const;

    // linearRows(x, layer, first, count) of the calling member, multiplied with the other
    // members' requests for the same outputs. Internal: ops::linearRows calls it.
    Matrix linearRows(const Matrix& x, const Linear& layer, Eigen::Index first, Eigen::Index count);

    // The batch the calling thread is a member of, or null.
    static ProductBatch* current();

private:
    struct Request;

    void join();
    void leave();
    void runWhileComplete(std::unique_lock<std::mutex>& lock);
    void multiply(const std::vector<Request*>& group) const;

    const int m_threads;
    mutable std::mutex m_mutex;
    std::condition_variable m_done;
    int m_members = 0;
    bool m_running = false;
    std::vector<Request*> m_waiting;
    std::int64_t m_products = 0;
    std::int64_t m_requests = 0;
};

}  // namespace attnscope::ops
