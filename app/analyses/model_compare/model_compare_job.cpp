#include "analyses/model_compare/model_compare_job.h"

#include <algorithm>

#include "analyses/model_compare/model_compare_document.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

using ModelPtr = std::shared_ptr<const model::Model>;
using ResultPtr = std::shared_ptr<const analysis::SentenceAnalysis>;
using Comparison = ModelCompareDocument::Comparison;

struct Names {
    QString a;
    QString b;
};

// What one run hands back: the comparison, or why the sentence cannot be compared.
struct Outcome {
    std::shared_ptr<const Comparison> comparison;
    QString notice;
};

QString pieceAt(const std::vector<tokenize::Token>& tokens, std::size_t i) {
    return i < tokens.size() ? QString::fromStdString(analysis::tokenLabel(tokens[i].text))
                             : QObject::tr("(end)");
}

// Why the second model's tokens `b` of the sentence are not `a`'s (padding left out); empty when
// they are the same ids.
QString idsNotice(const std::vector<tokenize::Token>& a, const std::vector<tokenize::Token>& b,
                  const Names& names) {
    const std::vector<std::int32_t> idsA = tokenize::ids(a);
    const std::vector<std::int32_t> idsB = tokenize::ids(b);
    if (idsA == idsB) {
        return {};
    }
    const auto first = static_cast<std::size_t>(
        std::mismatch(idsA.begin(), idsA.end(), idsB.begin(), idsB.end()).first - idsA.begin());
    return QObject::tr(
               "Model comparison is off for this sentence: %1 and %2 cut it into "
               "different tokens (%3 and %4 tokens; the first difference is token %5, "
               "“%6” against “%7”). It resumes when the sentence gives the same tokens "
               "in both.")
        .arg(names.a, names.b)
        .arg(idsA.size())
        .arg(idsB.size())
        .arg(first)
        .arg(pieceAt(a, first), pieceAt(b, first));
}

// The sentence of `passA` through `b`, and the comparison: the text through b's tokenizer, or,
// for token ids typed and for a model without tokenizer files, a's ids themselves.
Outcome compareOnce(const ModelPtr& a, const ResultPtr& passA, const ModelPtr& b,
                    const forward::ForwardOptions& options, const Names& names) {
    const std::size_t padding = std::min<std::size_t>(
        static_cast<std::size_t>(std::max(0, options.mask.paddingTokens)), passA->tokens.size());
    const std::vector<tokenize::Token> ownA(
        passA->tokens.begin(), passA->tokens.end() - static_cast<std::ptrdiff_t>(padding));
    ResultPtr passB;
    if (passA->text.empty() || !b->tokenizer) {
        passB = std::make_shared<const analysis::SentenceAnalysis>(
            analysis::analyzeIds(*b, tokenize::ids(ownA), options));
    } else {
        std::vector<tokenize::Token> tokens = b->tokenizer->encode(passA->text);
        if (QString notice = idsNotice(ownA, tokens, names); !notice.isEmpty()) {
            return {nullptr, notice};
        }
        passB = std::make_shared<const analysis::SentenceAnalysis>(
            analysis::analyzeTokens(*b, passA->text, std::move(tokens), options));
    }
    if (QString notice = idsNotice(passA->tokens, passB->tokens, names); !notice.isEmpty()) {
        return {nullptr, notice};  // the padding's ids differ
    }
    analysis::ModelComparison heads =
        analysis::compareModels(*a, passA->forward, *b, passB->forward, options.cancel);
    return {std::make_shared<const Comparison>(Comparison{a, b, passA, passB, std::move(heads)}),
            {}};
}

}  // namespace

ModelCompareJob::ModelCompareJob(ComputeService& service)
    : CorpusJob(service, tr("Comparing with another model")) {
    auto& document = session().document<ModelCompareDocument>();
    connect(&session(), &AnalysisSession::resultChanged, this, &ModelCompareJob::follow);
    connect(&document, &ModelCompareDocument::secondModelChanged, this, &ModelCompareJob::follow);
}

void ModelCompareJob::follow() {
    auto& document = session().document<ModelCompareDocument>();
    const ModelPtr a = model();
    const ModelPtr b = document.secondModel().model;
    const ResultPtr passA = session().cleanResult();
    if (!a || !b || !passA || session().seq2seq()) {
        document.clearComparison();
        return;
    }
    const auto shown = document.comparison();
    const bool started = isRunning() && m_startedA.lock() == passA && m_startedB.lock() == b;
    if (started || (shown && shown->a == passA && shown->modelB == b)) {
        return;  // an ablation toggled: the clean pass is the same
    }
    m_startedA = passA;
    m_startedB = b;
    forward::ForwardOptions options;
    options.mask = session().mask();
    options.scale = session().scale();
    options.whatIf = session().attentionWhatIf();
    options.mapBudgetBytes = session().mapBudgetBytes();
    const Names names{document.nameA(), document.nameB()};
    Work work = [this, a, b, passA, options, names](const CancelToken& cancel,
                                                    JobProgress&) -> JobRunner::ApplyStep {
        forward::ForwardOptions withCancel = options;
        withCancel.cancel = cancel;
        Outcome outcome = compareOnce(a, passA, b, withCancel, names);
        return [this, outcome = std::move(outcome), passA, b] {
            auto& target = session().document<ModelCompareDocument>();
            if (outcome.comparison) {
                target.setComparison(outcome.comparison);  // refused when stale
            } else if (passA == session().cleanResult() && b == target.secondModel().model) {
                target.setNotice(outcome.notice);
            }
        };
    };
    CorpusJob::start(document.secondModel().path, std::move(work),
                     {tr("Comparing with %1 failed: ").arg(names.b),
                      tr("Comparing with %1 was cancelled.").arg(names.b)});
}

}  // namespace attnscope::app
