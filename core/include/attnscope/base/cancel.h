// Cooperative cancellation and progress reporting for long core operations.
//
// A CancelToken is shared between the thread that asks for work and the thread doing it; the
// core checks it between layers (or files) and throws Cancelled. Thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include "attnscope/base/error.h"

namespace attnscope {

class Cancelled : public Error {
public:
    Cancelled() : Error("cancelled") {}
};

class CancelToken {
public:
    CancelToken() : m_flag(std::make_shared<std::atomic<bool>>(false)) {}

    void cancel() const { m_flag->store(true, std::memory_order_relaxed); }

    bool isCancelled() const { return m_flag->load(std::memory_order_relaxed); }

    void throwIfCancelled() const {
        if (isCancelled()) {
            throw Cancelled();
        }
    }

private:
    std::shared_ptr<std::atomic<bool>> m_flag;
};

// Called with a fraction in [0, 1]. Must be cheap; may be called from a worker thread.
using ProgressFn = std::function<void(double)>;

}  // namespace attnscope
