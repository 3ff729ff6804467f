// A tokenizer from GGUF vocabulary metadata, set up as llama.cpp's llama_vocab::impl::load and
// tokenize set theirs up (src/llama-vocab.cpp); see gguf_vocab.h.
#include "attnscope/tokenize/gguf_vocab.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "attnscope/base/error.h"
#include "attnscope/tokenize/hf_tokenizer.h"
#include "attnscope/tokenize/unicode.h"
#include "gguf_internal.h"

namespace attnscope::tokenize {

namespace detail {

std::string ggufKeyWhere(const GgufVocab& vocab, std::string_view key) {
    return vocab.source + ": key 'tokenizer.ggml." + std::string(key) + "'";
}

}  // namespace detail

namespace {

using detail::ggufKeyWhere;

// Vocab refuses ids from 2^24 on; no real vocabulary comes near (the largest have ~260k).
constexpr std::size_t kMaxTokens = std::size_t{1} << 24;

// Tokens llama.cpp makes control tokens by their text whatever type the file gives them: the
// end-of-generation and fill-in-the-middle tokens it looks for in llama_vocab::impl::load.
bool isControlByName(std::string_view text) {
    // "\u2581" is '▁' and "\uFF5C" '｜' (narrow literals are UTF-8 with GCC and Clang).
    static const std::vector<std::string_view> kNames = {
        // end of generation, turn or message
        "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
        "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
        "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
        "<\uFF5Cend\u2581of\u2581sentence\uFF5C>", "[e~[",
        // fill in the middle: prefix, suffix, middle, pad, repository, file separator
        "<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<\uFF5Cfim\u2581begin\uFF5C>", "<PRE>",
        "\u2581<PRE>", "<|code_prefix|>", "<|prefix|>", "<|fim_suffix|>", "<fim-suffix>",
        "<fim_suffix>", "<\uFF5Cfim\u2581hole\uFF5C>", "<SUF>", "\u2581<SUF>", "<|code_suffix|>",
        "<|suffix|>", "<|fim_middle|>", "<fim-middle>", "<fim_middle>",
        "<\uFF5Cfim\u2581end\uFF5C>", "<MID>", "\u2581<MID>", "<|code_middle|>", "<|middle|>",
        "<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]", "<|fim_repo|>", "<|repo_name|>",
        "<fim-repo>", "<REPO>", "<reponame>", "<|file_sep|>"};
    return std::find(kNames.begin(), kNames.end(), text) != kNames.end();
}

[[noreturn]] void fail(const GgufVocab& vocab, std::string_view key, const std::string& reason) {
    throw FormatError(ggufKeyWhere(vocab, key) + ": " + reason);
}

// The tokens as llama.cpp keeps them: an empty one renamed "[EMPTY_<id>]", a repeated one an
// error; the parallel arrays checked against them.
std::vector<std::string> checkedTokens(const GgufVocab& vocab) {
    const std::size_t n = vocab.tokens.size();
    if (n == 0) {
        fail(vocab, "tokens", "missing or empty");
    }
    if (n > kMaxTokens) {
        fail(vocab, "tokens", std::to_string(n) + " tokens is implausibly many");
    }
    const auto checkLength = [&](std::size_t size, std::string_view key) {
        if (size != 0 && size != n) {
            fail(vocab, key,
                 std::to_string(size) + " entries for the " + std::to_string(n) +
                     " tokens of tokenizer.ggml.tokens");
        }
    };
    checkLength(vocab.scores.size(), "scores");
    checkLength(vocab.tokenTypes.size(), "token_type");
    std::vector<std::string> tokens = vocab.tokens;
    std::unordered_map<std::string_view, std::size_t> seen;
    seen.reserve(n);
    for (std::size_t id = 0; id < n; ++id) {
        if (tokens[id].empty()) {
            tokens[id] = "[EMPTY_" + std::to_string(id) + "]";
        }
        const auto [it, fresh] = seen.emplace(tokens[id], id);
        if (!fresh) {
            // Built piecewise: GCC 12 sees a false overlap (-Wrestrict) in "\"" + string.
            std::string reason(1, '"');
            reason += clipped(tokens[id]) + "\" is both token " + std::to_string(it->second) +
                      " and token " + std::to_string(id);
            fail(vocab, "tokens", reason);
        }
    }
    return tokens;
}

enum class VocabType { Spm, Bpe, Wpm };

VocabType vocabType(const GgufVocab& vocab) {
    if (vocab.model.empty()) {
        fail(vocab, "model", "missing (the tokenizer type)");
    }
    if (vocab.model == "llama") {
        return VocabType::Spm;
    }
    if (vocab.model == "gpt2") {
        return VocabType::Bpe;
    }
    if (vocab.model == "bert") {
        return VocabType::Wpm;
    }
    throw UnsupportedModel(ggufKeyWhere(vocab, "model") + ": tokenizer \"" + clipped(vocab.model) +
                           "\" is not supported (AttnScope runs \"llama\", \"gpt2\" and "
                           "\"bert\" vocabularies)");
}

// Special token ids and flags once llama.cpp's defaults are applied.
struct Specials {
    std::optional<std::int32_t> bos;
    std::optional<std::int32_t> eos;
    std::optional<std::int32_t> unk;
    std::optional<std::int32_t> pad;
    std::optional<std::int32_t> sep;
    std::optional<std::int32_t> mask;
    bool addBos = false;
    bool addEos = false;
};

// llama.cpp drops a default id beyond the vocabulary, and ignores a stored one beyond it (with
// a warning) in favour of the default.
std::optional<std::int32_t> specialId(std::optional<std::uint64_t> stored,
                                      std::optional<std::int32_t> fallback, std::size_t n) {
    if (stored && *stored < n) {
        return static_cast<std::int32_t>(*stored);
    }
    if (fallback && static_cast<std::size_t>(*fallback) < n) {
        return fallback;
    }
    return std::nullopt;
}

// Fails when a token to be added has no id, as llama.cpp's check_add_special_token does.
void requireId(const GgufVocab& vocab, std::optional<std::int32_t> id,
               std::optional<std::uint64_t> stored, std::string_view key, std::string_view flag) {
    if (id) {
        return;
    }
    fail(vocab, key,
         (stored ? std::to_string(*stored) + " is not an id of the " +
                       std::to_string(vocab.tokens.size()) + " tokens"
                 : std::string("missing")) +
             ", but tokenizer.ggml." + std::string(flag) + " asks for the token");
}

// "bert" (WPM): BERT's [PAD] [UNK] [CLS] [SEP] [MASK] at 0 100 101 102 103, CLS being the
// BOS id; [CLS] and [SEP] go around the text whatever add_bos_token says (llama.cpp's tokenize
// asserts both ids exist), so a missing one is refused here.
Specials resolveWpmSpecials(const GgufVocab& vocab) {
    const std::size_t n = vocab.tokens.size();
    Specials s;
    s.bos = specialId(vocab.bosId, 101, n);
    s.eos = specialId(vocab.eosId, std::nullopt, n);
    s.unk = specialId(vocab.unkId, 100, n);
    s.sep = specialId(vocab.sepId, 102, n);
    s.pad = specialId(vocab.padId, 0, n);
    s.mask = specialId(vocab.maskId, 103, n);
    const std::pair<std::optional<std::int32_t>, std::string_view> needed[] = {
        {s.bos, "bos_token_id"}, {s.sep, "seperator_token_id"}};
    for (const auto& [id, key] : needed) {
        if (!id) {
            fail(vocab, key,
                 "missing, and llama.cpp's default is not an id of the " + std::to_string(n) +
                     " tokens: a \"bert\" vocabulary puts [CLS] (the BOS id) and [SEP] around "
                     "the text");
        }
    }
    return s;
}

Specials resolveSpecials(const GgufVocab& vocab, VocabType type, bool preAddsBos) {
    if (type == VocabType::Wpm) {
        return resolveWpmSpecials(vocab);
    }
    const std::size_t n = vocab.tokens.size();
    const bool spm = type == VocabType::Spm;
    Specials s;
    // The defaults of llama_vocab::impl::load: Llama's <unk> <s> </s> at 0 1 2; GPT-2 style
    // vocabularies get 11 for both BOS and EOS.
    s.bos = specialId(vocab.bosId, spm ? 1 : 11, n);
    s.eos = specialId(vocab.eosId, spm ? 2 : 11, n);
    s.unk = specialId(vocab.unkId, spm ? std::optional<std::int32_t>(0) : std::nullopt, n);
    s.pad = specialId(vocab.padId, std::nullopt, n);
    s.sep = specialId(vocab.sepId, std::nullopt, n);
    s.addBos = vocab.addBos.value_or(spm || preAddsBos);
    s.addEos = vocab.addEos.value_or(false);
    if (s.addBos) {
        requireId(vocab, s.bos, vocab.bosId, "bos_token_id", "add_bos_token");
    }
    if (s.addEos) {
        requireId(vocab, s.eos, vocab.eosId, "eos_token_id", "add_eos_token");
    }
    return s;
}

// llama.cpp strips the whitespace after Phi-3's special tokens (except <unk>, <s> and
// <|endoftext|>), recognising Phi-3 by general.name.
bool phi3RightStrip(const GgufVocab& vocab, std::string_view token) {
    std::string name = vocab.modelName;
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const bool phi3 =
        name.find("phi-3") != std::string::npos || name.find("phi3") != std::string::npos;
    return phi3 && token != "<unk>" && token != "<s>" && token != "<|endoftext|>";
}

// The tokens llama.cpp finds in the raw text before tokenizing the rest (its special token
// cache: control, user-defined and unknown types). With parse_special off it would look for
// the user-defined ones only; this tokenizer always looks for all of them.
std::vector<AddedToken> addedTokens(const GgufVocab& vocab,
                                    const std::vector<std::string>& tokens) {
    std::vector<AddedToken> out;
    for (std::size_t id = 0; id < tokens.size(); ++id) {
        const auto type = static_cast<GgufTokenType>(
            vocab.tokenTypes.empty() ? std::int32_t{1} : vocab.tokenTypes[id]);
        const bool control = type == GgufTokenType::Control || isControlByName(tokens[id]);
        if (!control && type != GgufTokenType::UserDefined && type != GgufTokenType::Unknown) {
            continue;
        }
        if (findInvalidUtf8(tokens[id])) {
            continue;  // text given to encode is valid UTF-8, so it can never hold this token
        }
        AddedToken t;
        t.content = tokens[id];
        t.id = static_cast<std::int32_t>(id);
        t.special = control || type == GgufTokenType::Unknown;
        t.rstrip = phi3RightStrip(vocab, tokens[id]);
        t.normalized = false;  // matched in the text as given
        out.push_back(std::move(t));
    }
    return out;
}

// "llama": spaces become '▁', one '▁' before each stretch of text between special tokens
// (llama.cpp prefixes a space to every raw fragment when add_space_prefix is on), the whole
// stretch merged as one word, byte fallback for what stays unknown.
void setUpSpm(TokenizerSpec& spec, const GgufVocab& vocab, const std::vector<std::string>& tokens,
              Vocab pieces, const Specials& specials) {
    if (vocab.addSpacePrefix.value_or(true)) {
        NormalizerStep prepend;
        prepend.kind = NormalizerKind::Prepend;
        prepend.text = U"\u2581";
        spec.normalizers.push_back(std::move(prepend));
    }
    NormalizerStep replace;
    replace.kind = NormalizerKind::Replace;
    replace.text = U" ";
    replace.content = U"\u2581";
    spec.normalizers.push_back(std::move(replace));
    std::vector<BpeMerge> merges = detail::spmMerges(tokens, vocab.scores, pieces);
    BpeOptions options;
    options.byteLevel = false;
    options.byteFallback = true;
    if (specials.unk) {
        options.unkToken = tokens[static_cast<std::size_t>(*specials.unk)];
    }
    spec.bpe = std::make_shared<const BpeModel>(std::move(pieces), merges, std::move(options));
}

// "gpt2": llama.cpp's regexes for `pre`, each isolating its matches, then byte-level BPE.
void setUpBpe(TokenizerSpec& spec, const GgufVocab& vocab, const detail::GgufPreType& pre,
              Vocab pieces) {
    for (std::size_t i = 0; i < pre.patterns.size(); ++i) {
        PreTokenizerStep step;
        step.kind = PreTokenizerKind::Split;
        step.pattern = std::make_shared<const RegexSplitter>(
            pre.patterns[i], false,
            ggufKeyWhere(vocab, "pre") + ": pattern " + std::to_string(i + 1));
        step.behavior = SplitBehavior::Isolated;
        spec.preTokenizers.push_back(std::move(step));
    }
    if (const std::string barrier = detail::ggufUnmergeablePattern(pieces); !barrier.empty()) {
        PreTokenizerStep step;
        step.kind = PreTokenizerKind::Split;
        step.pattern = std::make_shared<const RegexSplitter>(
            barrier, false, ggufKeyWhere(vocab, "tokens") + ": bytes without a token");
        step.behavior = SplitBehavior::Isolated;
        spec.preTokenizers.push_back(std::move(step));
    }
    PreTokenizerStep byteLevel;  // no regex and no prefix space: it marks the BPE byte-level
    byteLevel.kind = PreTokenizerKind::ByteLevel;
    spec.preTokenizers.push_back(std::move(byteLevel));
    const std::vector<BpeMerge> merges = detail::bpeMerges(vocab, pieces);
    BpeOptions options;
    options.byteLevel = true;
    options.ignoreMerges = pre.ignoreMerges;
    spec.bpe = std::make_shared<const BpeModel>(std::move(pieces), merges, std::move(options));
}

void setUpSpecials(TokenizerSpec& spec, const std::vector<std::string>& tokens, const Specials& s) {
    const auto piece = [&](std::int32_t id) {
        return SpecialPiece{tokens[static_cast<std::size_t>(id)], id};
    };
    if (s.addBos) {
        spec.post.prefix.push_back(piece(*s.bos));
    }
    if (s.addEos) {
        spec.post.suffix.push_back(piece(*s.eos));
    }
    const std::pair<SpecialRole, std::optional<std::int32_t>> roles[] = {{SpecialRole::Bos, s.bos},
                                                                         {SpecialRole::Eos, s.eos},
                                                                         {SpecialRole::Unk, s.unk},
                                                                         {SpecialRole::Pad, s.pad},
                                                                         {SpecialRole::Sep, s.sep}};
    for (const auto& [role, id] : roles) {
        if (id) {
            spec.roles[role] = *id;
        }
    }
}

}  // namespace

std::unique_ptr<Tokenizer> loadGgufTokenizer(const GgufVocab& vocab) {
    const VocabType type = vocabType(vocab);
    std::optional<detail::GgufPreType> pre;
    if (type == VocabType::Bpe) {
        pre = detail::ggufPreType(vocab.pre);
        if (!pre) {
            throw UnsupportedModel(ggufKeyWhere(vocab, "pre") + ": pre-tokenizer \"" +
                                   clipped(vocab.pre) + "\" is not supported; AttnScope knows " +
                                   detail::ggufPreTypeNames());
        }
        if (vocab.merges.empty()) {
            fail(vocab, "merges", "missing or empty (a \"gpt2\" vocabulary needs its merges)");
        }
    }
    const std::vector<std::string> tokens = checkedTokens(vocab);
    const Specials specials = resolveSpecials(vocab, type, pre && pre->addBos);
    if (type == VocabType::Wpm) {
        return detail::makeGgufWpmTokenizer(
            vocab, {tokens, addedTokens(vocab, tokens), *specials.bos, *specials.sep, specials.unk,
                    specials.pad, specials.mask, specials.eos});
    }
    Vocab pieces;
    for (std::size_t id = 0; id < tokens.size(); ++id) {
        pieces.add(tokens[id], static_cast<std::int32_t>(id));
    }
    TokenizerSpec spec;
    spec.source = vocab.source;
    if (type == VocabType::Spm) {
        setUpSpm(spec, vocab, tokens, std::move(pieces), specials);
    } else {
        setUpBpe(spec, vocab, *pre, std::move(pieces));
    }
    spec.addedTokens = addedTokens(vocab, tokens);
    setUpSpecials(spec, tokens, specials);
    return std::make_unique<HfTokenizer>(std::move(spec));
}

}  // namespace attnscope::tokenize
