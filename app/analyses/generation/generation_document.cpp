#include "analyses/generation/generation_document.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace attnscope::app {

std::string GenerationDocument::Run::samplerText() const {
    if (sampler.temperature <= 0.0f) {
        return "greedy";
    }
    std::array<char, 128> text{};
    std::snprintf(text.data(), text.size(), "temperature %g, top_k %d, top_p %g, seed %llu",
                  static_cast<double>(sampler.temperature), sampler.topK,
                  static_cast<double>(sampler.topP), static_cast<unsigned long long>(sampler.seed));
    return text.data();
}

void GenerationDocument::setRun(std::shared_ptr<const Run> run) {
    m_run = std::move(run);
    m_step = 0;
    emit runChanged();
    emit stepChanged(m_step);
}

void GenerationDocument::setStep(int step) {
    const int last = m_run ? std::max(0, m_run->steps() - 1) : 0;
    step = std::clamp(step, 0, last);
    if (step != m_step) {
        m_step = step;
        emit stepChanged(step);
    }
}

bool GenerationDocument::dropModel() {
    const bool had = m_run != nullptr;
    m_run.reset();
    m_step = 0;
    return had;
}

}  // namespace attnscope::app
