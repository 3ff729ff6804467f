#include "attnscope/export/hdf5_writer.h"

#include <algorithm>
#include <mutex>
#include <system_error>

#include <hdf5.h>
#include <unistd.h>

#include "attnscope/base/error.h"
#include "attnscope/base/version.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;

namespace {

// Owns one HDF5 identifier and closes it with the matching H5?close.
class Handle {
public:
    Handle(hid_t id, herr_t (*closer)(hid_t), const std::string& what) : m_id(id), m_close(closer) {
        if (id < 0) {
            throw Error(what);
        }
    }

    ~Handle() {
        if (m_id >= 0) {
            m_close(m_id);
        }
    }

    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;

    operator hid_t() const { return m_id; }

private:
    hid_t m_id;
    herr_t (*m_close)(hid_t);
};

// HDF5 prints its own error stack to stderr by default; we report errors ourselves.
class QuietErrors {
public:
    QuietErrors() {
        H5Eget_auto2(H5E_DEFAULT, &m_func, &m_data);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }

    ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, m_func, m_data); }

private:
    H5E_auto2_t m_func = nullptr;
    void* m_data = nullptr;
};

class Writer {
public:
    Writer(hid_t file, std::string name) : m_file(file), m_name(std::move(name)) {}

    void check(herr_t status, const std::string& what) const {
        if (status < 0) {
            throw Error(m_name + ": " + what + ": HDF5 write failed");
        }
    }

    // A dataset of `type` with the given dims, optionally chunked, filled from `data`.
    void dataset(const char* name, hid_t type, const std::vector<hsize_t>& dims, const void* data,
                 const std::vector<hsize_t>& chunk = {}) const {
        Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                     H5Sclose, m_name + ": " + name + ": cannot create dataspace");
        Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, m_name + ": property list");
        if (!chunk.empty()) {
            check(H5Pset_chunk(plist, static_cast<int>(chunk.size()), chunk.data()), name);
        }
        Handle set(H5Dcreate2(m_file, name, type, space, H5P_DEFAULT, plist, H5P_DEFAULT), H5Dclose,
                   m_name + ": " + name + ": cannot create dataset");
        check(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
    }

    void stringAttribute(const char* name, const std::string& value) const {
        Handle type(H5Tcopy(H5T_C_S1), H5Tclose, m_name + ": string type");
        check(H5Tset_size(type, H5T_VARIABLE), name);
        check(H5Tset_cset(type, H5T_CSET_UTF8), name);
        Handle space(H5Screate(H5S_SCALAR), H5Sclose, m_name + ": dataspace");
        Handle attr(H5Acreate2(m_file, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                    m_name + ": " + name + ": cannot create attribute");
        const char* p = value.c_str();
        check(H5Awrite(attr, type, &p), name);
    }

    template <class T>
    void numberAttribute(const char* name, hid_t type, const std::vector<T>& values) const {
        const hsize_t n = values.size();
        Handle space(values.size() == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr),
                     H5Sclose, m_name + ": dataspace");
        Handle attr(H5Acreate2(m_file, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                    m_name + ": " + name + ": cannot create attribute");
        check(H5Awrite(attr, type, values.data()), name);
    }

private:
    hid_t m_file;
    std::string m_name;
};

void writeTokens(const Writer& w, const ExportTokens& tokens, const std::string& name) {
    Handle strType(H5Tcopy(H5T_C_S1), H5Tclose, name + ": string type");
    w.check(H5Tset_size(strType, H5T_VARIABLE), "tokens");
    w.check(H5Tset_cset(strType, H5T_CSET_UTF8), "tokens");
    std::vector<const char*> ptrs;
    for (const std::string& t : tokens.text) {
        ptrs.push_back(t.c_str());
    }
    const hsize_t n = ptrs.size();
    w.dataset("tokens", strType, {n}, ptrs.data());
    std::vector<std::int64_t> flat;
    for (const auto& [b, e] : tokens.offsets) {
        flat.push_back(b);
        flat.push_back(e);
    }
    w.dataset("offsets", H5T_NATIVE_INT64, {n, 2}, flat.data());
}

void writeResult(const Writer& w, const forward::ForwardResult& r) {
    const auto n = static_cast<hsize_t>(r.nTokens);
    const auto layers = static_cast<hsize_t>(r.nLayers);
    const auto heads = static_cast<hsize_t>(r.nHeads);
    const std::vector<std::int64_t> ids(r.tokenIds.begin(), r.tokenIds.end());
    w.dataset("token_ids", H5T_NATIVE_INT64, {n}, ids.data());
    w.dataset("attention", H5T_NATIVE_FLOAT, {layers, heads, n, n}, r.probs.data(), {1, 1, n, n});
    w.dataset("logits", H5T_NATIVE_FLOAT, {layers, heads, n, n}, r.logits.data(), {1, 1, n, n});
    w.dataset("mask", H5T_NATIVE_UINT8, {n, n}, r.allowed.data());
    w.dataset("entropy", H5T_NATIVE_FLOAT, {layers, heads, n}, r.entropy.data());
    w.dataset("hidden", H5T_NATIVE_FLOAT, {n, static_cast<hsize_t>(r.hidden.cols())},
              r.hidden.data());
}

// Writes to `path`; messages name `target`, the file the user asked for.
void writeFile(const fs::path& path, const fs::path& target, const forward::ForwardResult& result,
               const ExportTokens& tokens, const ExportMetadata& meta) {
    const std::string name = target.string();
    Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                name + ": cannot create file");
    const Writer w(file, name);
    writeTokens(w, tokens, name);
    writeResult(w, result);
    w.stringAttribute("model", meta.model);
    w.stringAttribute("model_type", meta.modelType);
    w.stringAttribute("mask_kind", result.maskKind);
    w.stringAttribute("text", meta.text);
    w.stringAttribute("attnscope_version", std::string(version()));
    w.numberAttribute<std::int64_t>("num_layers", H5T_NATIVE_INT64, {result.nLayers});
    w.numberAttribute<std::int64_t>("num_heads", H5T_NATIVE_INT64, {result.nHeads});
    std::vector<float> scales = result.scales;
    if (std::all_of(scales.begin(), scales.end(), [&](float s) { return s == scales.front(); })) {
        scales.resize(1);
    }
    w.numberAttribute<float>("scale", H5T_NATIVE_FLOAT, scales);
    w.check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush");
}

}  // namespace

void writeInterchangeFile(const fs::path& path, const forward::ForwardResult& result,
                          const ExportTokens& tokens, const ExportMetadata& metadata) {
    const auto n = static_cast<std::size_t>(result.nTokens);
    if (tokens.text.size() != n || tokens.offsets.size() != n) {
        throw InvalidArgument(path.string() + ": " + std::to_string(tokens.text.size()) +
                              " token strings and " + std::to_string(tokens.offsets.size()) +
                              " offsets for " + std::to_string(n) + " tokens");
    }
    static std::mutex hdf5Mutex;  // Debian's libhdf5 is not built thread-safe
    const std::lock_guard lock(hdf5Mutex);
    const QuietErrors quiet;
    fs::path tmp = path;
    tmp += ".tmp-" + std::to_string(::getpid());
    try {
        writeFile(tmp, path, result, tokens, metadata);
        fs::rename(tmp, path);
    } catch (const std::filesystem::filesystem_error& e) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw Error(path.string() +
                    ": cannot move the finished file into place: " + e.code().message());
    } catch (...) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw;
    }
}

}  // namespace attnscope::exporting
