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

}  // namespace

std::size_t Weights::memoryBytes() const {
    std::size_t total = bytesOf(tokenEmbedding) + bytesOf(positionEmbedding) +
                        bytesOf(tokenTypeEmbedding) + bytesOf(embeddingNorm) +
                        bytesOf(relativeBias) + bytesOf(finalNorm) + bytesOf(prediction.transform) +
                        bytesOf(prediction.transformNorm) + bytesOf(prediction.decoder) +
                        bytesOf(prediction.bias);
    for (const LayerWeights& l : layers) {
        for (const Linear* linear :
             {&l.query, &l.key, &l.value, &l.output, &l.ffnGate, &l.ffnUp, &l.ffnDown,
              &l.crossQuery, &l.crossKey, &l.crossValue, &l.crossOutput}) {
            total += bytesOf(*linear);
        }
        total += bytesOf(l.attnNorm) + bytesOf(l.ffnNorm) + bytesOf(l.crossNorm);
    }
    return total;
}

}  // namespace attnscope::model
