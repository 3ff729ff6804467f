#include "attnscope/export/seq2seq_export.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "attnscope/base/error.h"
#include "hdf5_support.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;
using forward::AttentionKind;

const char* const kTeacherForcingRule =
    "decoder input = [decoder_start_token_id] + target[:-1] (transformers' shift_tokens_right): "
    "decoder row t reads the target up to token t-1 and produces target token t";

namespace {

constexpr AttentionKind kKinds[] = {AttentionKind::Encoder, AttentionKind::Decoder,
                                    AttentionKind::Cross};

// Names relative to one group ("cross/attention"); HDF5 creates the group on the way.
class GroupWriter {
public:
    GroupWriter(const Writer& w, std::string group) : m_w(w), m_group(std::move(group)) {}

    std::string path(const std::string& name) const {
        return m_group.empty() ? name : m_group + "/" + name;
    }

    // tokens, token_ids and offsets of one axis, under `prefix` ("row_", "column_", "target_").
    void tokens(const std::string& prefix, const std::vector<tokenize::Token>& tokens) const {
        std::vector<std::string> text;
        std::vector<std::int64_t> ids;
        std::vector<std::int64_t> offsets;
        for (const tokenize::Token& t : tokens) {
            text.push_back(t.text);
            ids.push_back(t.id);
            offsets.push_back(static_cast<std::int64_t>(t.charBegin));
            offsets.push_back(static_cast<std::int64_t>(t.charEnd));
        }
        const hsize_t n = tokens.size();
        m_w.strings(path(prefix + "tokens").c_str(), text);
        m_w.dataset(path(prefix + "token_ids").c_str(), H5T_NATIVE_INT64, {n}, ids.data());
        m_w.dataset(path(prefix + "offsets").c_str(), H5T_NATIVE_INT64, {n, 2}, offsets.data());
    }

    void maps(const forward::ForwardResult& r) const {
        const auto rows = static_cast<hsize_t>(r.nTokens);
        const auto cols = static_cast<hsize_t>(r.keyCount());
        const std::vector<hsize_t> dims = {static_cast<hsize_t>(r.nLayers),
                                           static_cast<hsize_t>(r.nHeads), rows, cols};
        const std::vector<hsize_t> chunk = {1, 1, rows, cols};
        m_w.dataset(path("attention").c_str(), H5T_NATIVE_FLOAT, dims, r.probs.data(), chunk);
        m_w.dataset(path("logits").c_str(), H5T_NATIVE_FLOAT, dims, r.logits.data(), chunk);
        m_w.dataset(path("mask").c_str(), H5T_NATIVE_UINT8, {rows, cols}, r.allowed.data());
        m_w.dataset(path("entropy").c_str(), H5T_NATIVE_FLOAT, {dims[0], dims[1], rows},
                    r.entropy.data());
    }

private:
    const Writer& m_w;
    std::string m_group;
};

void writeKind(hid_t file, const Writer& w, const std::string& fileName,
               const analysis::Seq2SeqAnalysis& a, AttentionKind kind) {
    const analysis::SentenceAnalysis& s = a.of(kind);
    const forward::ForwardResult& r = s.forward;
    const std::string name = forward::attentionKindName(kind);
    const GroupWriter g(w, name);
    g.maps(r);
    g.tokens("row_", s.tokens);
    g.tokens("column_", kind == AttentionKind::Cross ? s.keyTokens : s.tokens);
    if (kind != AttentionKind::Cross) {
        w.dataset(g.path("hidden").c_str(), H5T_NATIVE_FLOAT,
                  {static_cast<hsize_t>(r.hidden.rows()), static_cast<hsize_t>(r.hidden.cols())},
                  r.hidden.data());
    }
    const Handle group(H5Gopen2(file, name.c_str(), H5P_DEFAULT), H5Gclose,
                       fileName + ": " + name + ": cannot open group");
    w.stringAttributeOn(group, "kind", forward::attentionKindTitle(kind));
    w.stringAttributeOn(group, "mask_kind", r.maskKind);
    w.numberAttribute<std::int64_t>("num_layers", H5T_NATIVE_INT64, {r.nLayers}, group);
    w.numberAttribute<std::int64_t>("num_heads", H5T_NATIVE_INT64, {r.nHeads}, group);
    std::vector<float> scales = r.scales;
    if (std::all_of(scales.begin(), scales.end(), [&](float x) { return x == scales.front(); })) {
        scales.resize(1);
    }
    w.numberAttribute<float>("scale", H5T_NATIVE_FLOAT, scales, group);
}

void writeFile(hid_t file, const fs::path& target, const analysis::Seq2SeqAnalysis& a,
               const Seq2SeqMetadata& meta) {
    const std::string name = target.string();
    const Writer w(file, name);
    for (const AttentionKind kind : kKinds) {
        writeKind(file, w, name, a, kind);
    }
    GroupWriter(w, "").tokens("target_", a.targetTokens);
    w.runAttributes({{"file_kind", "encoder-decoder"},
                     {"model", meta.model},
                     {"model_type", meta.modelType},
                     {"source_text", a.encoder.text},
                     {"target_text", a.targetText},
                     {"teacher_forcing", kTeacherForcingRule}});
    w.numberAttribute<std::int64_t>("decoder_start_token_id", H5T_NATIVE_INT64,
                                    {meta.decoderStartTokenId});
}

// The analysis must be one whole run: every kind's tokens matching its pass.
void checkConsistent(const fs::path& path, const analysis::Seq2SeqAnalysis& a) {
    const auto fail = [&](const std::string& what) {
        throw InvalidArgument(path.string() + ": " + what);
    };
    for (const AttentionKind kind : kKinds) {
        const analysis::SentenceAnalysis& s = a.of(kind);
        const std::string name = forward::attentionKindName(kind);
        if (s.tokens.size() != static_cast<std::size_t>(s.forward.nTokens)) {
            fail(name + ": " + std::to_string(s.tokens.size()) + " row tokens for " +
                 std::to_string(s.forward.nTokens) + " rows");
        }
        const std::size_t columns =
            kind == AttentionKind::Cross ? s.keyTokens.size() : s.tokens.size();
        if (columns != static_cast<std::size_t>(s.forward.keyCount())) {
            fail(name + ": " + std::to_string(columns) + " column tokens for " +
                 std::to_string(s.forward.keyCount()) + " columns");
        }
        if (!s.forward.mapsRecorded) {
            fail(name + ": the attention maps were not recorded");
        }
    }
    if (!a.targetTokens.empty() &&
        a.targetTokens.size() != static_cast<std::size_t>(a.decoder.forward.nTokens)) {
        fail(std::to_string(a.targetTokens.size()) + " target tokens for " +
             std::to_string(a.decoder.forward.nTokens) + " decoder rows");
    }
}

}  // namespace

void writeSeq2SeqInterchangeFile(const fs::path& path, const analysis::Seq2SeqAnalysis& analysis,
                                 const Seq2SeqMetadata& metadata) {
    checkConsistent(path, analysis);
    writeHdf5Atomically(path, [&](hid_t file) { writeFile(file, path, analysis, metadata); });
}

}  // namespace attnscope::exporting
