#include "attnscope/analysis/weight_circuits.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>

#include "attnscope/base/error.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/ops/half_matrix.h"

namespace attnscope::analysis {

namespace {

using Dense = Eigen::MatrixXd;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kPositionsRead = 64;
constexpr Eigen::Index kVocabBlock = 4096;  // rows of W_E / W_U widened at a time

// Rows [first, first + count) of a weight matrix ([out, in]) in double.
Dense rowsOf(const model::Linear& w, Eigen::Index first, Eigen::Index count) {
    if (!w.isStored()) {
        return w.weight.middleRows(first, count).cast<double>();
    }
    Matrix out;
    ops::widenRows(w, first, count, out);
    return out.cast<double>();
}

void centreColumns(Dense& m) {  // each column minus its mean over the rows (over d_model)
    m.rowwise() -= m.colwise().mean();
}

bool layerNorms(const model::ModelSpec& spec) {
    return spec.normKind == model::NormKind::LayerNorm;
}

// The norm whose output attention reads in `layer`, or null (OLMo-2 reads the stream itself).
const model::Norm* readingNorm(const model::Model& m, int layer) {
    const model::ModelSpec& spec = m.spec;
    switch (spec.normPlacement) {
        case model::NormPlacement::Pre:
        case model::NormPlacement::Sandwich:
            return &m.weights.layers[static_cast<std::size_t>(layer)].attnNorm;
        case model::NormPlacement::Post:
            if (layer > 0) {
                return &m.weights.layers[static_cast<std::size_t>(layer) - 1].ffnNorm;
            }
            return spec.embeddingNorm ? &m.weights.embeddingNorm : nullptr;
        case model::NormPlacement::Output:
            break;
    }
    return nullptr;
}

// One head's reading factor [d_model, width]: rows `first…` of `w` transposed, the reading
// norm's weight folded into its rows (centred over d_model for LayerNorm), and a QK-norm weight
// `columns` (empty: none) into its columns.
Dense readingFactor(const model::Model& m, int layer, const model::Linear& w, Eigen::Index first,
                    Eigen::Index width, const Eigen::VectorXd& columns) {
    Dense f = rowsOf(w, first, width).transpose();
    if (const model::Norm* norm = readingNorm(m, layer); norm != nullptr) {
        f = norm->weight.cast<double>().asDiagonal() * f;
        if (layerNorms(m.spec)) {
            centreColumns(f);
        }
    }
    if (columns.size() > 0) {
        f = f * columns.asDiagonal();
    }
    return f;
}

// The QK-norm weight of head `unit`'s columns (empty without QK-norm).
Eigen::VectorXd qkNormColumns(const model::ModelSpec& spec, const model::Norm& norm, int unit) {
    if (spec.qkNorm == model::QkNorm::None || norm.weight.size() == 0) {
        return {};
    }
    if (spec.qkNorm == model::QkNorm::Whole) {
        return norm.weight.segment(Eigen::Index{unit} * spec.headDimK, spec.headDimK)
            .cast<double>();
    }
    return norm.weight.cast<double>();
}

// A head's factors: W_QK = q kᵀ, W_OV = v o, each [d_model, d_head] except o [d_head, d_model].
struct Factors {
    Dense q, k, v, o;
};

Factors factorsOf(const model::Model& m, HeadId h) {
    const model::ModelSpec& spec = m.spec;
    const model::LayerWeights& w = m.weights.layers[static_cast<std::size_t>(h.layer)];
    const int kv = spec.kvHeadOf(h.head);
    Factors f;
    f.q = readingFactor(m, h.layer, w.query, Eigen::Index{h.head} * spec.headDimK, spec.headDimK,
                        qkNormColumns(spec, w.queryNorm, h.head));
    f.k = readingFactor(m, h.layer, w.key, Eigen::Index{kv} * spec.headDimK, spec.headDimK,
                        qkNormColumns(spec, w.keyNorm, kv));
    f.v = readingFactor(m, h.layer, w.value, Eigen::Index{kv} * spec.headDimV, spec.headDimV, {});
    // W_O^h: the output projection's columns of head h, as [d_head, d_model].
    Dense out = rowsOf(w.output, 0, w.output.outputs());  // [d_model, nHeads * d_head]
    f.o = out.middleCols(Eigen::Index{h.head} * spec.headDimV, spec.headDimV).transpose();
    if (layerNorms(spec)) {
        f.o.transposeInPlace();
        centreColumns(f.o);  // W_O's rows centred over d_model (center_writing_weights)
        f.o.transposeInPlace();
    }
    return f;
}

// R of a thin QR of `a` [rows, cols ≤ rows]: ‖a x‖ = ‖R x‖ for every x.
Dense triangle(const Dense& a) {
    Eigen::HouseholderQR<Dense> qr(a);
    const Eigen::Index c = std::min(a.rows(), a.cols());
    return qr.matrixQR().topRows(c).triangularView<Eigen::Upper>();
}

// Singular values of l rᵀ (l, r [d, k]) through R_l R_rᵀ.
std::vector<double> singularValues(const Dense& l, const Dense& r) {
    const Dense core = triangle(l) * triangle(r).transpose();
    const Eigen::VectorXd s = Eigen::JacobiSVD<Dense>(core).singularValues();
    return {s.data(), s.data() + s.size()};
}

// weightCircuits' progress, by an estimate of each step's time rather than by heads: on a deep
// model the composition's pairs are most of it. The unit is one [d_head, d_model] × [d_model,
// d_head] product; the other steps were timed against it on GPT-2 small's shapes (d_model 768,
// d_head 64), where QR, the small SVDs and W_O (W_U W_E) W_V run several times slower per
// multiply-add than the composition's wide products:
//  - W_U W_E (copying scores only): its multiply-adds, d_model / d_head² per token;
//  - a head's scores: 40 (QR factors, SVDs, eigenvalues), and 5 · d_model / d_head more when
//    scoring copying;
//  - the composition's four QR factors of each head: 16;
//  - each (earlier, later) pair: 3, its three products.
class WorkProgress {
public:
    // `vocab`: the rows of W_U W_E to sum (0 without copying scores).
    WorkProgress(const model::ModelSpec& spec, bool copying, Eigen::Index vocab,
                 const ProgressFn& progress)
        : m_progress(progress),
          m_perToken(double(spec.dModel) / (double(spec.headDimK) * spec.headDimK)),
          m_perHead(40.0 + (copying ? 5.0 * spec.dModel / spec.headDimK : 0.0)) {
        const double heads = double(spec.nLayers) * spec.nHeads;
        const double pairs = heads * spec.nHeads * (spec.nLayers - 1) / 2;
        m_total = static_cast<double>(vocab) * m_perToken + heads * (m_perHead + kFactors) +
                  pairs * kPair;
    }

    void tokensDone(Eigen::Index tokens) { add(m_perToken * static_cast<double>(tokens)); }

    void headDone() { add(m_perHead); }

    void factorsDone() { add(kFactors); }

    void pairsDone(Eigen::Index pairs) { add(kPair * static_cast<double>(pairs)); }

private:
    static constexpr double kFactors = 16;
    static constexpr double kPair = 3;

    void add(double units) {
        m_done += units;
        if (m_progress) {
            m_progress(std::min(1.0, m_done / m_total));
        }
    }

    const ProgressFn& m_progress;
    double m_perToken;
    double m_perHead;
    double m_total = 1;
    double m_done = 0;
};

// M = W_U W_E [d_model, d_model], processed as the header says, summed over vocabulary blocks
// so that neither whole matrix is ever held in double.
Dense unembedTimesEmbed(const model::Model& m, const CancelToken& cancel, WorkProgress& work) {
    const model::ModelSpec& spec = m.spec;
    const model::Linear& unembed = m.weights.decoder();
    const model::Linear& embed = m.weights.tokenEmbedding;
    const Eigen::Index vocab = unembed.outputs();
    const Eigen::Index d = spec.dModel;
    Dense sum = Dense::Zero(d, d);
    Eigen::VectorXd unembedSum = Eigen::VectorXd::Zero(d);
    Eigen::VectorXd embedSum = Eigen::VectorXd::Zero(d);
    for (Eigen::Index first = 0; first < vocab; first += kVocabBlock) {
        cancel.throwIfCancelled();
        const Eigen::Index count = std::min(kVocabBlock, vocab - first);
        Dense u = rowsOf(unembed, first, count).transpose();  // [d, count]
        if (spec.finalNorm) {
            u = m.weights.finalNorm.weight.cast<double>().asDiagonal() * u;
        }
        Dense e = rowsOf(embed, first, count) * static_cast<double>(spec.embeddingScale);
        if (layerNorms(spec)) {
            centreColumns(u);
            e.colwise() -= e.rowwise().mean();  // each token's row centred over d_model
        }
        sum.noalias() += u * e;
        unembedSum += u.rowwise().sum();
        embedSum += e.colwise().sum().transpose();
        work.tokensDone(count);
    }
    // W_U centred over the vocabulary: Σ_v (u_v − ū) e_vᵀ = Σ u_v e_vᵀ − ū (Σ e_v)ᵀ.
    sum.noalias() -= (unembedSum / static_cast<double>(vocab)) * embedSum.transpose();
    return sum;
}

double copyingScore(const Factors& f, const Dense& unembedEmbed) {
    const Dense k = f.o * unembedEmbed * f.v;  // [d_head, d_head]: W_OV W_U W_E's eigenvalues
    const Eigen::VectorXcd lambda = Eigen::EigenSolver<Dense>(k, false).eigenvalues();
    double magnitude = 0;
    for (const std::complex<double>& l : lambda) {
        magnitude += std::abs(l);
    }
    return magnitude == 0 ? kNaN : k.trace() / magnitude;
}

double positionalPrevious(const model::Model& m, const Factors& f) {
    const model::ModelSpec& spec = m.spec;
    const auto n = static_cast<Eigen::Index>(std::min(spec.maxPositions, kPositionsRead));
    Dense pos = m.weights.positionEmbedding.topRows(n).cast<double>();
    pos.colwise() -= pos.rowwise().mean();
    const Eigen::VectorXd rms =
        (pos.rowwise().squaredNorm() / static_cast<double>(spec.dModel)).array() +
        static_cast<double>(spec.normEps);
    pos = rms.cwiseSqrt().cwiseInverse().asDiagonal() * pos;
    const Dense p = (pos * f.q) * (pos * f.k).transpose() / std::sqrt(double(spec.headDimK));
    double total = 0;
    for (Eigen::Index i = 1; i < n; ++i) {
        const Eigen::VectorXd row = p.row(i).head(i + 1).transpose();
        const Eigen::ArrayXd e = (row.array() - row.maxCoeff()).exp();
        total += e(i - 1) / e.sum();
    }
    return total / static_cast<double>(n - 1);
}

bool hasPositionalScore(const model::Model& m) {
    return m.spec.learnedPositions && m.weights.positionEmbedding.rows() > 1 &&
           m.spec.defaultMask == model::DefaultMask::Causal;
}

// The three composition matrices (see the header), from each head's factors.
void composition(const model::ModelSpec& spec, const std::vector<Factors>& f, WeightCircuits& w,
                 const CancelToken& cancel, WorkProgress& work) {
    const auto heads = static_cast<Eigen::Index>(f.size());
    const Eigen::Index dk = spec.headDimK;
    const Eigen::Index dv = spec.headDimV;
    std::vector<Dense> rq, rk, rv, ro;
    Dense qs(spec.dModel, heads * dk), ks(spec.dModel, heads * dk), vs(spec.dModel, heads * dv);
    std::vector<double> qkNorm, ovNorm;
    for (Eigen::Index h = 0; h < heads; ++h) {
        cancel.throwIfCancelled();
        const Factors& x = f[static_cast<std::size_t>(h)];
        rq.push_back(triangle(x.q));
        rk.push_back(triangle(x.k));
        rv.push_back(triangle(x.v));
        ro.push_back(triangle(x.o.transpose()));
        qs.middleCols(h * dk, dk) = x.q;
        ks.middleCols(h * dk, dk) = x.k;
        vs.middleCols(h * dv, dv) = x.v;
        qkNorm.push_back((rq.back() * rk.back().transpose()).norm());
        ovNorm.push_back((rv.back() * ro.back().transpose()).norm());
        work.factorsDone();
    }
    const auto size = static_cast<std::size_t>(heads * heads);
    w.compQ.assign(size, 0.0);
    w.compK.assign(size, 0.0);
    w.compV.assign(size, 0.0);
    for (Eigen::Index h1 = 0; h1 < heads; ++h1) {
        cancel.throwIfCancelled();
        const Eigen::Index later = (h1 / spec.nHeads + 1) * spec.nHeads;  // first later head
        if (later >= heads) {
            break;
        }
        const auto u1 = static_cast<std::size_t>(h1);
        const Dense x1 = rv[u1] * f[u1].o;  // [d_head, d_model]: ‖x1 B‖ = ‖W_OV^h1 B‖
        const Dense gq = x1 * qs.rightCols((heads - later) * dk);
        const Dense gk = x1 * ks.rightCols((heads - later) * dk);
        const Dense gv = x1 * vs.rightCols((heads - later) * dv);
        for (Eigen::Index h2 = later; h2 < heads; ++h2) {
            const auto u2 = static_cast<std::size_t>(h2);
            const Eigen::Index c = h2 - later;
            const std::size_t at = u1 * static_cast<std::size_t>(heads) + u2;
            const double qk = ovNorm[u1] * qkNorm[u2];
            w.compQ[at] = (gq.middleCols(c * dk, dk) * rk[u2].transpose()).norm() / qk;
            w.compK[at] = (gk.middleCols(c * dk, dk) * rq[u2].transpose()).norm() / qk;
            w.compV[at] =
                (gv.middleCols(c * dv, dv) * ro[u2].transpose()).norm() / (ovNorm[u1] * ovNorm[u2]);
        }
        work.pairsDone(heads - later);
    }
}

}  // namespace

std::string weightCircuitsUnsupportedReason(const model::Model& m) {
    if (m.isEncoderDecoder()) {
        return "weight-space circuits are for one-stack models, not encoder-decoder models";
    }
    if (m.spec.relativeBuckets > 0) {
        return "the model's relative position bias has no weight-space QK circuit";
    }
    return {};
}

}  // namespace attnscope::analysis

namespace attnscope::analysis {

WeightCircuits weightCircuits(const model::Model& m, const CancelToken& cancel,
                              const ProgressFn& progress) {
    if (const std::string why = weightCircuitsUnsupportedReason(m); !why.empty()) {
        throw InvalidArgument(m.dir.string() + ": " + why);
    }
    const model::ModelSpec& spec = m.spec;
    WeightCircuits w{
        spec.nLayers, spec.nHeads, spec.dModel, {},
        {},           {},          {},          1.0 / std::sqrt(static_cast<double>(spec.dModel))};
    const bool copying =
        spec.prediction == model::PredictionKind::CausalLm && forward::hasPredictionHead(m);
    WorkProgress work(spec, copying, copying ? m.weights.decoder().outputs() : 0, progress);
    const Dense unembedEmbed = copying ? unembedTimesEmbed(m, cancel, work) : Dense();
    std::vector<Factors> factors;
    const int total = spec.nLayers * spec.nHeads;
    for (int i = 0; i < total; ++i) {
        cancel.throwIfCancelled();
        const HeadId h{i / spec.nHeads, i % spec.nHeads};
        factors.push_back(factorsOf(m, h));
        const Factors& f = factors.back();
        HeadWeights hw;
        hw.qkSingular = singularValues(f.q, f.k);
        hw.ovSingular = singularValues(f.v, f.o.transpose());
        hw.copying = copying ? copyingScore(f, unembedEmbed) : kNaN;
        hw.positionalPrevious = hasPositionalScore(m) ? positionalPrevious(m, f) : kNaN;
        w.heads.push_back(std::move(hw));
        work.headDone();
    }
    composition(spec, factors, w, cancel, work);
    if (progress) {
        progress(1.0);
    }
    return w;
}

}  // namespace attnscope::analysis
