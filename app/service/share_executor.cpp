#include "service/share_executor.h"

#include <vector>

#include <QFuture>
#include <QtConcurrent/QtConcurrentRun>

namespace attnscope::app {

analysis::ShareExecutor onSharePool(QThreadPool* pool) {
    return [pool](std::size_t n, const std::function<void(std::size_t)>& task) {
        std::vector<QFuture<void>> running;
        running.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            running.push_back(QtConcurrent::run(pool, [&task, i] { task(i); }));
        }
        for (QFuture<void>& f : running) {
            f.waitForFinished();
        }
    };
}

}  // namespace attnscope::app
