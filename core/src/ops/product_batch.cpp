#include "attnscope/ops/product_batch.h"

#include <algorithm>
#include <exception>
#include <functional>

#include <omp.h>

#include "attnscope/ops/layer_ops.h"

namespace attnscope::ops {

namespace {

thread_local ProductBatch* t_batch = nullptr;

// Multiplies on the calling thread with its own settings, however it is batched.
class Unbatched {
public:
    Unbatched() : m_saved(t_batch) { t_batch = nullptr; }

    ~Unbatched() { t_batch = m_saved; }

    Unbatched(const Unbatched&) = delete;
    Unbatched& operator=(const Unbatched&) = delete;

private:
    ProductBatch* m_saved;
};

}  // namespace

struct ProductBatch::Request {
    const Linear* layer;
    Eigen::Index first;
    Eigen::Index count;
    const Matrix* x;
    Matrix out;
    std::exception_ptr error;
    bool done = false;

    bool sameProduct(const Request& other) const {
        return layer == other.layer && first == other.first && count == other.count;
    }
};

ProductBatch::ProductBatch(int threads) : m_threads(std::max(threads, 1)) {}

ProductBatch::Member::Member(ProductBatch& batch)
    : m_batch(batch), m_previous(t_batch), m_previousThreads(omp_get_max_threads()) {
    m_batch.join();
    t_batch = &m_batch;
    omp_set_num_threads(1);
}

ProductBatch::Member::~Member() {
    t_batch = m_previous;
    omp_set_num_threads(m_previousThreads);
    m_batch.leave();
}

ProductBatch* ProductBatch::current() {
    return t_batch;
}

std::int64_t ProductBatch::products() const {
    const std::lock_guard lock(m_mutex);
    return m_products;
}

std::int64_t ProductBatch::requests() const {
    const std::lock_guard lock(m_mutex);
    return m_requests;
}

void ProductBatch::join() {
    const std::lock_guard lock(m_mutex);
    ++m_members;
}

void ProductBatch::leave() {
    std::unique_lock lock(m_mutex);
    --m_members;
    // The members left may all be waiting now, for this one.
    runWhileComplete(lock);
}

Matrix ProductBatch::linearRows(const Matrix& x, const Linear& layer, Eigen::Index first,
                                Eigen::Index count) {
    Request request{&layer, first, count, &x, Matrix(), nullptr};
    std::unique_lock lock(m_mutex);
    m_waiting.push_back(&request);
    runWhileComplete(lock);
    m_done.wait(lock, [&request] { return request.done; });
    if (request.error) {
        std::rethrow_exception(request.error);
    }
    return std::move(request.out);
}

// While every member waits and no product runs: take the earliest product's group out of the
// queue, multiply it with the lock released, and wake its members. "Earliest" is the lowest
// weight address: a model's layers lie in order in its weights, so members behind the others
// (a pass that started later, or restarts lower down) catch up and then share their products.
void ProductBatch::runWhileComplete(std::unique_lock<std::mutex>& lock) {
    while (!m_running && !m_waiting.empty() &&
           m_waiting.size() >= static_cast<std::size_t>(m_members)) {
        const Request& earliest = **std::min_element(
            m_waiting.begin(), m_waiting.end(), [](const Request* a, const Request* b) {
                return std::less<>()(a->layer, b->layer) ||
                       (a->layer == b->layer && a->first < b->first);
            });
        std::vector<Request*> group;
        std::vector<Request*> rest;
        for (Request* r : m_waiting) {
            (r->sameProduct(earliest) ? group : rest).push_back(r);
        }
        m_waiting = std::move(rest);
        m_running = true;
        ++m_products;
        m_requests += static_cast<std::int64_t>(group.size());
        lock.unlock();
        multiply(group);
        lock.lock();
        m_running = false;
        for (Request* r : group) {
            r->done = true;
        }
        m_done.notify_all();
    }
}

// The group's rows stacked in queue order, one product on the batch's threads, each member's
// rows cut back out. Errors go to every member of the group.
void ProductBatch::multiply(const std::vector<Request*>& group) const {
    const Unbatched direct;
    const int saved = omp_get_max_threads();
    omp_set_num_threads(m_threads);
    try {
        const Request& first = *group.front();
        if (group.size() == 1) {
            group.front()->out = ops::linearRows(*first.x, *first.layer, first.first, first.count);
        } else {
            Eigen::Index rows = 0;
            for (const Request* r : group) {
                rows += r->x->rows();
            }
            Matrix stacked(rows, first.x->cols());
            Eigen::Index at = 0;
            for (const Request* r : group) {
                stacked.middleRows(at, r->x->rows()) = *r->x;
                at += r->x->rows();
            }
            const Matrix y = ops::linearRows(stacked, *first.layer, first.first, first.count);
            at = 0;
            for (Request* r : group) {
                r->out = y.middleRows(at, r->x->rows());
                at += r->x->rows();
            }
        }
    } catch (...) {
        for (Request* r : group) {
            r->error = std::current_exception();
        }
    }
    omp_set_num_threads(saved);
}

}  // namespace attnscope::ops
