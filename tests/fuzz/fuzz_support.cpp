#include "fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::fuzz {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPrefix = "attnscope-fuzz-";

// Folders of crashed runs (libFuzzer leaves with _Exit) are removed when their process is gone.
void removeStaleFolders(const fs::path& base) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(base, ec)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with(kPrefix)) {
            continue;
        }
        const std::string pid = name.substr(std::string(kPrefix).size());
        if (!pid.empty() && !fs::exists(fs::path("/proc") / pid, ec)) {
            fs::remove_all(entry.path(), ec);
        }
    }
}

class ProcessFolder {
public:
    ProcessFolder() {
        std::error_code ec;
        fs::path base = "/dev/shm";
        if (!fs::is_directory(base, ec)) {
            base = fs::temp_directory_path();
        }
        removeStaleFolders(base);
        m_path = base / (kPrefix + std::to_string(::getpid()));
        fs::create_directories(m_path);
    }

    ~ProcessFolder() {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }

    ProcessFolder(const ProcessFolder&) = delete;
    ProcessFolder& operator=(const ProcessFolder&) = delete;

    const fs::path& path() const { return m_path; }

private:
    fs::path m_path;
};

std::size_t codePoints(std::string_view text) {
    std::size_t n = 0;
    for (const char c : text) {
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    }
    return n;
}

void checkTokens(const std::vector<tokenize::Token>& tokens, std::string_view text) {
    const std::size_t chars = codePoints(text);
    for (const tokenize::Token& t : tokens) {
        if (t.byteBegin > t.byteEnd || t.byteEnd > text.size() || t.charBegin > t.charEnd ||
            t.charEnd > chars) {
            fail("token '" + t.text + "' (id " + std::to_string(t.id) + ") has bytes [" +
                 std::to_string(t.byteBegin) + ", " + std::to_string(t.byteEnd) + "), chars [" +
                 std::to_string(t.charBegin) + ", " + std::to_string(t.charEnd) +
                 ") outside a text of " + std::to_string(text.size()) + " bytes, " +
                 std::to_string(chars) + " characters");
        }
    }
}

void encodeChecked(const tokenize::Tokenizer& tok, std::string_view text) {
    for (const bool special : {true, false}) {
        expectErrors([&] {
            const auto tokens = tok.encode(text, special);
            checkTokens(tokens, text);
            for (const tokenize::Token& t : tokens) {
                (void)tok.idToToken(t.id);
            }
        });
    }
}

}  // namespace

fs::path scratchDir(const std::string& name) {
    static const ProcessFolder folder;
    const fs::path dir = folder.path() / name;
    std::error_code ec;
    fs::create_directories(dir, ec);
    return dir;
}

fs::path writeFile(const fs::path& dir, const std::string& name, std::string_view bytes) {
    const fs::path path = dir / name;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        fail("cannot create " + path.string());
    }
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) {
            ::close(fd);
            fail("cannot write " + path.string());
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return path;
}

void removeFile(const fs::path& dir, const std::string& name) {
    std::error_code ec;
    fs::remove(dir / name, ec);
}

std::string readSourceFile(const std::string& relativePath) {
    const fs::path path = fs::path(ATTNSCOPE_SOURCE_DIR) / relativePath;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        fail("fixed input missing: " + path.string());
    }
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool verbose() {
    static const bool kVerbose = std::getenv("ATTNSCOPE_FUZZ_VERBOSE") != nullptr;
    return kVerbose;
}

void logError(const char* what) {
    std::fprintf(stderr, "refused: %s\n", what);
}

void fail(const std::string& what) {
    std::fprintf(stderr, "FUZZ INVARIANT BROKEN: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

const std::vector<std::string>& fixedTexts() {
    static const std::vector<std::string> kTexts = {
        "",
        "Hello world",
        "The quick brown fox can't jump over 12345 lazy dogs, can it?",
        "  leading and trailing spaces  ",
        "h\xC3\xA9llo na\xC3\xAFve caf\xC3\xA9 \xC3\x85ngstr\xC3\xB6m",   // accents
        "\xE4\xB8\xAD\xE6\x96\x87 \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",  // CJK
        "x\xF0\x9F\xA5\xB2y emoji",                                       // 4-byte UTF-8
        "[CLS] a [MASK] b [SEP] <mask> <s>hi</s> <|endoftext|> <unk> <pad>",
        "tab\there\nnew line\r\nwindows \xE2\x96\x81 metaspace \xC4\xA0 byte-level",
        "ctrl \x01\x7F\xC2\x85 chars \xE2\x80\x8B zero width",
        "\xFF\xFE invalid",  // invalid UTF-8: InvalidArgument
        "truncated \xE4\xB8",
        std::string(300, 'a'),  // longer than WordPiece's 100 characters per word
    };
    return kTexts;
}

std::vector<std::string> textsFromInput(std::string_view input, std::size_t maxBytes) {
    std::vector<std::string> out;
    out.emplace_back(input.substr(0, maxBytes));
    if (input.size() > maxBytes) {
        out.emplace_back(input.substr(input.size() - maxBytes));
    }
    return out;
}

void exerciseVocabulary(const std::filesystem::path& dir, const std::string& what) {
    expectErrors([&] {
        if (const auto vocab = tokenize::loadTokenVocabulary(dir)) {
            touchVocabulary(*vocab);
        } else {
            fail("loadTokenVocabulary found no " + what);
        }
    });
}

void touchVocabulary(const tokenize::TokenVocabulary& vocab) {
    const std::size_t size = vocab.vocabSize();
    const auto probe = [&](std::int64_t id) {
        if (id < 0 || id > INT32_MAX) {
            return;
        }
        const std::string piece = vocab.idToToken(static_cast<std::int32_t>(id));
        if (!piece.empty()) {
            (void)vocab.tokenToId(piece);
        }
    };
    for (std::int64_t id = -2; id < 40; ++id) {
        probe(id);
    }
    const auto end = static_cast<std::int64_t>(size);
    for (std::int64_t id = end - 3; id < end + 3; ++id) {
        probe(id);
    }
    probe(INT32_MAX);
    for (const auto role :
         {tokenize::SpecialRole::Cls, tokenize::SpecialRole::Sep, tokenize::SpecialRole::Bos,
          tokenize::SpecialRole::Eos, tokenize::SpecialRole::Pad, tokenize::SpecialRole::Mask,
          tokenize::SpecialRole::Unk}) {
        if (const auto id = vocab.specialId(role)) {
            (void)vocab.idToToken(*id);
        }
    }
    (void)vocab.tokenToId("");
    (void)vocab.tokenToId("[UNK]");
}

void exerciseTokenizer(const tokenize::Tokenizer& tok, std::string_view input) {
    (void)tok.kind();
    (void)tok.describe();
    touchVocabulary(tok);
    for (const std::string& text : fixedTexts()) {
        encodeChecked(tok, text);
    }
    for (const std::string& text : textsFromInput(input)) {
        encodeChecked(tok, text);
    }
    // The vocabulary's own pieces, joined: words the merges and the longest match know.
    std::string pieces;
    for (std::int32_t id = 0; id < 64; ++id) {
        pieces += tok.idToToken(id) + (id % 4 == 3 ? " " : "");
    }
    encodeChecked(tok, pieces);
}

}  // namespace attnscope::fuzz
