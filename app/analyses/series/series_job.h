// The training series' statistics (issue 33): every checkpoint of the SeriesDocument loaded in
// turn (vocabulary only, one at a time, on the ComputeService's background pool), checked for
// the first one's shape, run on the session's token ids and summarised per head; progress per
// checkpoint, Cancel, and a failure naming the checkpoint on the message bar. It follows the
// session: a new sentence (other token ids) starts a new run; stepping through the series, which
// runs the same ids, does not.
#pragma once

#include <cstdint>
#include <vector>

#include "service/corpus_job.h"

namespace attnscope::app {

class SeriesJob : public CorpusJob {
public:
    explicit SeriesJob(ComputeService& service);

    // Starts a run unless the statistics shown, or the run under way, are of the session's ids.
    void follow();

private:
    std::vector<std::int32_t> m_started;
};

}  // namespace attnscope::app
