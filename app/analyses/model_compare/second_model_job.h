// Opens the model to compare with (issue 32) the way the window opens its own: model::loadModel
// on the ComputeService's background pool, its progress in thousandths of the bytes read, Cancel,
// and a failure on the message bar. A model of another shape than the session's (other layers or
// heads), or an encoder-decoder, is refused with the reason; one that fits becomes the
// ModelCompareDocument's second model. A new main model drops a load under way.
#pragma once

#include <QString>

#include "service/corpus_job.h"

namespace attnscope::app {

class SecondModelJob : public CorpusJob {
public:
    explicit SecondModelJob(ComputeService& service);

    // A Hugging Face model folder or a .gguf file.
    void open(const QString& path);
};

}  // namespace attnscope::app
