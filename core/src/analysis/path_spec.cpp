// The --path grammar of attnscope-cli patch and the app's path box (activation_patching.h).
#include <string>
#include <string_view>

#include "attnscope/analysis/activation_patching.h"
#include "attnscope/base/error.h"
#include "attnscope/base/trim.h"

namespace attnscope::analysis {

namespace {

constexpr std::size_t kQuoted = 40;  // a long text is named by its start, not echoed whole

[[noreturn]] void fail(std::string_view text, const std::string& why) {
    std::string quoted(text.substr(0, kQuoted));
    if (text.size() > kQuoted) {
        quoted += "...";
    }
    throw InvalidArgument("path '" + quoted + "': " + why);
}

std::vector<HeadId> heads(std::string_view text, std::string_view part, const char* role) {
    if (trimmed(part).empty()) {
        fail(text, std::string("no ") + role + " heads");
    }
    std::vector<HeadId> list;
    try {
        list = parseHeadList(std::string(part));
    } catch (const InvalidArgument& e) {
        fail(text, std::string(role) + ": " + e.what());
    }
    return list;
}

forward::PatchSite site(std::string_view text, std::string_view name) {
    name = trimmed(name);
    if (name == "q") {
        return forward::PatchSite::Query;
    }
    if (name == "k") {
        return forward::PatchSite::Key;
    }
    if (name == "v") {
        return forward::PatchSite::Value;
    }
    fail(text, "the receivers' site must be q, k or v");
}

}  // namespace

PathSpec parsePathSpec(std::string_view text, PatchDirection direction) {
    PathSpec path;
    path.direction = direction;
    const std::size_t arrow = text.find("->");
    if (arrow == std::string_view::npos) {
        fail(text, "expected SENDERS->RECEIVERS:q|k|v or SENDERS->logits");
    }
    path.senders = heads(text, text.substr(0, arrow), "sender");
    const std::string_view rest = text.substr(arrow + 2);
    if (trimmed(rest) == "logits") {
        return path;
    }
    const std::size_t colon = rest.rfind(':');
    if (colon == std::string_view::npos) {
        fail(text, "the receivers need a site: append :q, :k or :v");
    }
    path.receivers = heads(text, rest.substr(0, colon), "receiver");
    path.site = site(text, rest.substr(colon + 1));
    return path;
}

}  // namespace attnscope::analysis
