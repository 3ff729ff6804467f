// HDF5 C API helpers shared by the exporters (private to core/src/export): an owning handle,
// a guard that silences HDF5's own error printing, and a writer for datasets and attributes.
// Debian's libhdf5 is not built thread-safe, so every exporter holds hdf5Mutex() while it
// calls into the library.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <iterator>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <hdf5.h>

#include "attnscope/base/error.h"
#include "attnscope/base/version.h"
#include "attnscope/export/output_file.h"

namespace attnscope::exporting {

inline std::mutex& hdf5Mutex() {
    static std::mutex m;
    return m;
}

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

// HDF5's native type for the element types the exporters write (H5T_NATIVE_* are not
// constants: each opens the library).
template <class T>
hid_t nativeType() {
    if constexpr (std::is_same_v<T, double>) {
        return H5T_NATIVE_DOUBLE;
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
        return H5T_NATIVE_INT64;
    } else {
        static_assert(std::is_same_v<T, std::int8_t>, "no HDF5 type for this column");
        return H5T_NATIVE_INT8;
    }
}

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
        // No modification times in the object headers: the same results give the same bytes
        // (a corpus job split into shards and merged equals one run, issue 35).
        check(H5Pset_obj_track_times(plist, 0), name);
        if (!chunk.empty()) {
            check(H5Pset_chunk(plist, static_cast<int>(chunk.size()), chunk.data()), name);
        }
        // Paths such as "sentences/12/attention" create their groups on the way.
        Handle links(H5Pcreate(H5P_LINK_CREATE), H5Pclose, m_name + ": property list");
        check(H5Pset_create_intermediate_group(links, 1), name);
        Handle set(H5Dcreate2(m_file, name, type, space, links, plist, H5P_DEFAULT), H5Dclose,
                   m_name + ": " + name + ": cannot create dataset");
        check(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
    }

    // A 1-D dataset of field(r) for every record r, of the field's type: a list of records
    // written as one dataset per field, each named beside the field it holds.
    template <class Records, class Field>
    void column(const char* name, const Records& records, Field field) const {
        using T = std::decay_t<decltype(field(*std::begin(records)))>;
        std::vector<T> values;
        values.reserve(std::size(records));
        for (const auto& r : records) {
            values.push_back(field(r));
        }
        dataset(name, nativeType<T>(), {values.size()}, values.data());
    }

    // A 1-D dataset of variable-length UTF-8 strings (h5py reads them as str).
    void strings(const char* name, const std::vector<std::string>& values) const {
        Handle type(H5Tcopy(H5T_C_S1), H5Tclose, m_name + ": string type");
        check(H5Tset_size(type, H5T_VARIABLE), name);
        check(H5Tset_cset(type, H5T_CSET_UTF8), name);
        std::vector<const char*> ptrs;
        for (const std::string& v : values) {
            ptrs.push_back(v.c_str());
        }
        dataset(name, type, {values.size()}, ptrs.data());
    }

    // Attributes go on `object` (the file or a group / dataset opened by the caller).
    void stringAttribute(const char* name, const std::string& value) const {
        stringAttributeOn(m_file, name, value);
    }

    void stringAttributeOn(hid_t object, const char* name, const std::string& value) const {
        Handle type(H5Tcopy(H5T_C_S1), H5Tclose, m_name + ": string type");
        check(H5Tset_size(type, H5T_VARIABLE), name);
        check(H5Tset_cset(type, H5T_CSET_UTF8), name);
        Handle space(H5Screate(H5S_SCALAR), H5Sclose, m_name + ": dataspace");
        Handle attr(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                    m_name + ": " + name + ": cannot create attribute");
        const char* p = value.c_str();
        check(H5Awrite(attr, type, &p), name);
    }

    // The run's string attributes on the file, in order, then "attnscope_version", which every
    // export ends them with.
    void runAttributes(std::initializer_list<std::pair<const char*, std::string>> values) const {
        for (const auto& [name, value] : values) {
            stringAttribute(name, value);
        }
        stringAttribute("attnscope_version", std::string(version()));
    }

    // Scalar int64 attributes on the file (counts, sizes, flags as 0/1), in order.
    void int64Attributes(std::initializer_list<std::pair<const char*, std::int64_t>> values) const {
        for (const auto& [name, value] : values) {
            numberAttribute<std::int64_t>(name, H5T_NATIVE_INT64, {value});
        }
    }

    template <class T>
    void numberAttribute(const char* name, hid_t type, const std::vector<T>& values,
                         hid_t object = -1) const {
        const hsize_t n = values.size();
        Handle space(values.size() == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr),
                     H5Sclose, m_name + ": dataspace");
        Handle attr(
            H5Acreate2(object < 0 ? m_file : object, name, type, space, H5P_DEFAULT, H5P_DEFAULT),
            H5Aclose, m_name + ": " + name + ": cannot create attribute");
        check(H5Awrite(attr, type, values.data()), name);
    }

private:
    hid_t m_file;
    std::string m_name;
};

// Builds the file in memory (HDF5's core driver, no backing store), then writes its image by
// output_file.h's rules: a temporary file renamed into place, devices and pipes written through,
// so a failed export never leaves a partial file and never destroys an older one. HDF5 itself
// never writes to disk: a full disk is met by our writer, with the OS reason, rather than inside
// HDF5, whose H5Fclose after a failed flush leaves a file id that crashes H5_term_library at
// exit (HDF5 1.10). The cost is the file's size in memory, twice at the end.
// `write(file)` fills the open file. Holds hdf5Mutex() and silences HDF5's error printing.
template <class Write>
void writeHdf5Atomically(const std::filesystem::path& path, Write&& write) {
    const std::lock_guard lock(hdf5Mutex());
    const QuietErrors quiet;
    const std::string name = path.string();
    std::string image;
    {
        Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, name + ": property list");
        constexpr std::size_t kGrowBy = std::size_t{16} << 20;
        if (H5Pset_fapl_core(access, kGrowBy, /*backing_store=*/0) < 0) {
            throw Error(name + ": cannot set up an in-memory HDF5 file");
        }
        Handle file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access), H5Fclose,
                    name + ": cannot create file");
        write(static_cast<hid_t>(file));
        const Writer w(file, name);
        w.check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush");
        const ssize_t size = H5Fget_file_image(file, nullptr, 0);
        if (size < 0) {
            throw Error(name + ": cannot take the finished HDF5 image");
        }
        image.resize(static_cast<std::size_t>(size));
        if (H5Fget_file_image(file, image.data(), image.size()) != size) {
            throw Error(name + ": cannot take the finished HDF5 image");
        }
    }
    writeOutputFile(path, image);
}

}  // namespace attnscope::exporting
