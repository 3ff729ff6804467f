// Tokenizers from the "slow" vocabulary files: BERT's vocab.txt, GPT-2's vocab.json + merges.txt.
// The pipeline around them is what transformers' converters (convert_slow_tokenizer.py) build for
// BertTokenizerFast, GPT2TokenizerFast and RobertaTokenizerFast.
#include <fstream>
#include <sstream>

#include "attnscope/base/error.h"
#include "attnscope/io/input_file.h"
#include "loader_internal.h"

namespace attnscope::tokenize::detail {
namespace {

// The lines of a text file, without their "\n" or "\r\n". A final line without a newline counts.
std::vector<std::string> readLines(const std::filesystem::path& file) {
    std::ifstream in = io::openTextFile(file);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        lines.push_back(line);
    }
    return lines;
}

void checkUtf8(const std::string& line, const std::filesystem::path& file, std::size_t lineNo) {
    if (const auto bad = findInvalidUtf8(line)) {
        throw FormatError(file.string() + ": line " + std::to_string(lineNo) +
                          ": invalid UTF-8 at column " + std::to_string(*bad + 1) +
                          ", expected UTF-8 text");
    }
}

std::int32_t requireId(const Vocab& vocab, const std::string& token,
                       const std::filesystem::path& file) {
    const auto id = vocab.find(token);
    if (!id) {
        throw FormatError(file.string() + ": vocabulary: special token \"" + token +
                          "\" is missing, expected it among the pieces");
    }
    return *id;
}

// Registers `content` as a special added token when the vocabulary has it.
void addSpecial(TokenizerSpec& spec, const Vocab& vocab, const std::string& content,
                bool lstrip = false) {
    if (const auto id = vocab.find(content)) {
        AddedToken t;
        t.content = content;
        t.id = *id;
        t.special = true;
        t.lstrip = lstrip;
        t.normalized = false;
        spec.addedTokens.push_back(std::move(t));
    }
}

std::vector<BpeMerge> readMerges(const std::filesystem::path& file) {
    const std::vector<std::string> lines = readLines(file);
    std::vector<BpeMerge> merges;
    merges.reserve(lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        const std::size_t lineNo = i + 1;
        if (line.empty() || line.starts_with("#version")) {
            continue;
        }
        checkUtf8(line, file, lineNo);
        const auto space = line.find(' ');
        if (space == std::string::npos || space == 0 || space + 1 == line.size() ||
            line.find(' ', space + 1) != std::string::npos) {
            throw FormatError(file.string() + ": line " + std::to_string(lineNo) + ": \"" + line +
                              "\" is not two pieces separated by one space");
        }
        merges.push_back(
            {line.substr(0, space), line.substr(space + 1), "line " + std::to_string(lineNo)});
    }
    return merges;
}

}  // namespace

Vocab readVocabTxt(const std::filesystem::path& file) {
    const std::vector<std::string> lines = readLines(file);
    Vocab vocab;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        checkUtf8(lines[i], file, i + 1);
        if (i > static_cast<std::size_t>(kMaxTokenId)) {
            throw FormatError(file.string() + ": line " + std::to_string(i + 1) +
                              ": implausibly many pieces");
        }
        vocab.add(lines[i], static_cast<std::int32_t>(i));
    }
    return vocab;
}

TokenizerSpec specFromWordPieceVocab(const std::filesystem::path& vocabTxt,
                                     const WordPieceFilesOptions& options) {
    Vocab vocab = readVocabTxt(vocabTxt);
    if (vocab.size() == 0) {
        throw FormatError(vocabTxt.string() + ": line 1: the vocabulary is empty");
    }
    TokenizerSpec spec;
    spec.source = vocabTxt.string();
    BertNormalizerOptions normalizer;
    normalizer.lowercase = options.lowercase;
    normalizer.stripAccents = options.stripAccents;
    normalizer.handleChineseChars = options.handleChineseChars;
    NormalizerStep bert;
    bert.kind = NormalizerKind::Bert;
    bert.bert = normalizer;
    spec.normalizers.push_back(bert);
    spec.preTokenizers.push_back({});  // BertPreTokenizer
    spec.post.prefix.push_back({options.clsToken, requireId(vocab, options.clsToken, vocabTxt)});
    spec.post.suffix.push_back({options.sepToken, requireId(vocab, options.sepToken, vocabTxt)});
    requireId(vocab, options.unkToken, vocabTxt);
    for (const std::string* t : {&options.padToken, &options.unkToken, &options.clsToken,
                                 &options.sepToken, &options.maskToken}) {
        addSpecial(spec, vocab, *t);
    }
    WordPieceOptions model;
    model.unkToken = options.unkToken;
    spec.wordPiece = std::make_shared<const WordPieceModel>(std::move(vocab), std::move(model));
    setConventionalRoles(spec);
    spec.roles[SpecialRole::Cls] = spec.post.prefix.front().id;
    spec.roles[SpecialRole::Sep] = spec.post.suffix.front().id;
    return spec;
}

TokenizerSpec specFromByteLevelBpeFiles(const std::filesystem::path& vocabJson,
                                        const std::filesystem::path& mergesTxt,
                                        const ByteLevelBpeFilesOptions& options) {
    Vocab vocab = vocabFromJson(readJsonFile(vocabJson), JsonAt{vocabJson.string()});
    const std::vector<BpeMerge> merges = readMerges(mergesTxt);
    TokenizerSpec spec;
    spec.source = vocabJson.string() + " + " + mergesTxt.string();
    PreTokenizerStep byteLevel;
    byteLevel.kind = PreTokenizerKind::ByteLevel;
    byteLevel.byteLevel.addPrefixSpace = options.addPrefixSpace;
    byteLevel.pattern = std::make_shared<const RegexSplitter>();
    spec.preTokenizers.push_back(std::move(byteLevel));
    const bool roberta =
        options.style == ByteLevelStyle::Roberta ||
        (options.style == ByteLevelStyle::Auto && vocab.find("<s>") && vocab.find("</s>"));
    if (roberta) {
        spec.post.prefix.push_back({"<s>", requireId(vocab, "<s>", vocabJson)});
        spec.post.suffix.push_back({"</s>", requireId(vocab, "</s>", vocabJson)});
        spec.post.trimOffsets = options.trimOffsets;
        spec.post.trimAddPrefixSpace = options.addPrefixSpace;
        for (const char* t : {"<s>", "<pad>", "</s>", "<unk>"}) {
            addSpecial(spec, vocab, t);
        }
        addSpecial(spec, vocab, "<mask>", /*lstrip=*/true);
    } else {
        // GPT2TokenizerFast's post-processor is ByteLevel(trim_offsets=False): offsets untouched.
        addSpecial(spec, vocab, "<|endoftext|>");
    }
    spec.bpe = withContext(mergesTxt.string(), [&] {
        return std::make_shared<const BpeModel>(std::move(vocab), merges, BpeOptions{});
    });
    setConventionalRoles(spec);
    return spec;
}

}  // namespace attnscope::tokenize::detail
