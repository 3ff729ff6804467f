// Test helper: holds every thread of a QThreadPool busy until opened, so a job the service
// starts waits in the pool, in flight, for as long as a test needs (cancel, newest-wins and
// "computing…" states are tested this way).
#pragma once

#include <memory>

#include <QSemaphore>
#include <QThreadPool>

namespace attnscope::app::paneltest {

class PoolGate {
public:
    explicit PoolGate(QThreadPool* pool) : m_count(pool->maxThreadCount()) {
        for (int i = 0; i < m_count; ++i) {
            pool->start([running = m_running, gate = m_gate] {
                running->release();
                gate->acquire();
            });
        }
        m_running->acquire(m_count);
    }

    ~PoolGate() { open(); }

    PoolGate(const PoolGate&) = delete;
    PoolGate& operator=(const PoolGate&) = delete;

    void open() {
        if (!m_open) {
            m_open = true;
            m_gate->release(m_count);
        }
    }

private:
    int m_count;
    bool m_open = false;
    std::shared_ptr<QSemaphore> m_running = std::make_shared<QSemaphore>();
    std::shared_ptr<QSemaphore> m_gate = std::make_shared<QSemaphore>();
};

}  // namespace attnscope::app::paneltest
