#include "attnscope/model/weights.h"

namespace attnscope::model {

namespace {

std::size_t bytesOf(const Matrix& m) {
    return static_cast<std::size_t>(m.size()) * sizeof(float);
}

std::size_t bytesOf(const Vector& v) {
    return static_cast<std::size_t>(v.size()) * sizeof(float);
}

std::size_t bytesOf(const Linear& l) {
    return bytesOf(l.weight) + static_cast<std::size_t>(l.half.bits.size()) * 2 +
           l.blocks.bytes.size() + bytesOf(l.bias);
}

std::size_t bytesOf(const Norm& n) {
    return bytesOf(n.weight) + bytesOf(n.bias);
}

// The pointers of linears(), const or not as `w` is.
template <class W>
auto linearsOf(W& w) {
    std::vector<decltype(&w.tokenEmbedding)> out{&w.tokenEmbedding, &w.prediction.transform,
                                                 &w.prediction.decoder};
    for (auto& l : w.layers) {
        out.insert(out.end(),
                   {&l.query, &l.key, &l.value, &l.output, &l.ffnGate, &l.ffnUp, &l.ffnDown,
                    &l.crossQuery, &l.crossKey, &l.crossValue, &l.crossOutput});
    }
    return out;
}

}  // namespace

std::vector<Linear*> Weights::linears() {
    return linearsOf(*this);
}

std::vector<const Linear*> Weights::linears() const {
    return linearsOf(*this);
}

std::size_t Weights::memoryBytes() const {
    std::size_t total = bytesOf(positionEmbedding) + bytesOf(tokenTypeEmbedding) +
                        bytesOf(embeddingNorm) + bytesOf(relativeBias) + bytesOf(finalNorm) +
                        bytesOf(prediction.transformNorm) + bytesOf(prediction.bias);
    for (const Linear* linear : linears()) {
        total += bytesOf(*linear);
    }
    for (const LayerWeights& l : layers) {
        total += bytesOf(l.attnNorm) + bytesOf(l.ffnNorm) + bytesOf(l.crossNorm);
    }
    return total;
}

}  // namespace attnscope::model
