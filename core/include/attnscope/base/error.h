// Exception types thrown by the core.
//
// Every message reads "<file>: <where>: <reason>", where <where> is a tensor name, a JSON path,
// a byte offset or a line:column, and <reason> says what was found and what was expected.
// A stage that catches an error adds its own prefix with `rethrowWithContext`.
// Where errors stop: in the app, every background job ends in one catch site (the JobRunner
// behind the ComputeService, app/service/job_runner.h), and the few actions still done on the GUI
// thread (figure export, reading a sentence list) catch Error and report it; the CLI catches in
// its main. Inside the core, a caller catches only to add context (rethrowWithContext) or to
// turn one item's failure into a counted skip (a bad treebank sentence). Nothing in the core
// aborts on data read from a file.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace attnscope {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The bytes of a file do not follow its format, or disagree with each other.
class FormatError : public Error {
public:
    using Error::Error;
};

// A well-formed file describes something AttnScope does not implement.
class UnsupportedModel : public Error {
public:
    using Error::Error;
};

// A caller passed something invalid (bad token id, too many tokens, bad UTF-8 text).
class InvalidArgument : public Error {
public:
    using Error::Error;
};

// Text taken from a file, shortened for an error message: a hostile file can hold a 100 MB
// name. Cuts at a UTF-8 character boundary and marks the cut with "…".
inline std::string clipped(std::string_view text, std::size_t maxBytes = 80) {
    if (text.size() <= maxBytes) {
        return std::string(text);
    }
    std::size_t end = maxBytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
        --end;  // a continuation byte: back off to the start of its character
    }
    return std::string(text.substr(0, end)) + "…";
}

// Runs `fn`; if it throws an attnscope::Error, rethrows the same type with "<context>: "
// prepended. Used by load stages so an error says which stage failed.
template <class Fn>
decltype(auto) withContext(const std::string& context, Fn&& fn) {
    try {
        return fn();
    } catch (const FormatError& e) {
        throw FormatError(context + ": " + e.what());
    } catch (const UnsupportedModel& e) {
        throw UnsupportedModel(context + ": " + e.what());
    } catch (const InvalidArgument& e) {
        throw InvalidArgument(context + ": " + e.what());
    } catch (const Error& e) {
        throw Error(context + ": " + e.what());
    }
}

}  // namespace attnscope
