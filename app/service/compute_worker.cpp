#include "service/compute_worker.h"

#include <new>

#include <QElapsedTimer>

#include "attnscope/base/error.h"

namespace attnscope::app {

void ComputeWorker::compute(const ComputeRequest& request) {
    QElapsedTimer timer;
    timer.start();
    try {
        auto result = std::make_shared<const analysis::SentenceAnalysis>(
            analysis::analyzeText(*request.model, request.text, request.options));
        emit computed(request.generation, std::move(result),
                      static_cast<double>(timer.nsecsElapsed()) / 1e6);
    } catch (const Cancelled&) {
        emit cancelled(request.generation);
    } catch (const Error& e) {
        emit failed(request.generation, QString::fromStdString(e.what()));
    } catch (const std::bad_alloc&) {
        emit failed(request.generation,
                    QStringLiteral("out of memory: this sentence needs more memory than is free "
                                   "(try a shorter one)"));
    } catch (const std::exception& e) {
        emit failed(request.generation, QStringLiteral("internal error: ") + e.what());
    }
}

}  // namespace attnscope::app
