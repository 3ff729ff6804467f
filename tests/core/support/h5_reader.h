// Reads an HDF5 file back with the C API, as h5py would see it, for the export tests. A missing
// dataset or attribute reads as empty (exists() tells them apart), so a test fails on its
// expectation rather than on an HDF5 error stack.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <hdf5.h>

namespace attnscope::testing {

class H5Reader {
public:
    explicit H5Reader(const std::filesystem::path& path)
        : m_file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {}

    ~H5Reader() {
        if (m_file >= 0) {
            H5Fclose(m_file);
        }
    }

    H5Reader(const H5Reader&) = delete;
    H5Reader& operator=(const H5Reader&) = delete;

    bool ok() const { return m_file >= 0; }

    // A dataset or group at `path` ("scores/prev").
    bool exists(const char* path) const {
        return H5Lexists(m_file, path, H5P_DEFAULT) > 0 &&
               H5Oexists_by_name(m_file, path, H5P_DEFAULT) > 0;
    }

    // Attributes of the file's root, or of the dataset or group `object`.
    bool hasAttribute(const char* name, const char* object = ".") const {
        return (std::string_view(object) == "." || exists(object)) &&
               H5Aexists_by_name(m_file, object, name, H5P_DEFAULT) > 0;
    }

    std::vector<hsize_t> dims(const char* name) const {
        if (!exists(name)) {
            return {};
        }
        const hid_t set = H5Dopen2(m_file, name, H5P_DEFAULT);
        const hid_t space = H5Dget_space(set);
        std::vector<hsize_t> out(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
        H5Sget_simple_extent_dims(space, out.data(), nullptr);
        H5Sclose(space);
        H5Dclose(set);
        return out;
    }

    template <class T>
    std::vector<T> values(const char* name, hid_t type) const {
        if (!exists(name)) {
            return {};
        }
        std::size_t n = 1;
        for (const hsize_t d : dims(name)) {
            n *= d;
        }
        std::vector<T> out(n);
        if (n > 0) {
            const hid_t set = H5Dopen2(m_file, name, H5P_DEFAULT);
            H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
            H5Dclose(set);
        }
        return out;
    }

    template <class T>
    T number(const char* name, hid_t type, const char* object = ".") const {
        T value{};
        if (!hasAttribute(name, object)) {
            return value;
        }
        const hid_t attr = H5Aopen_by_name(m_file, object, name, H5P_DEFAULT, H5P_DEFAULT);
        H5Aread(attr, type, &value);
        H5Aclose(attr);
        return value;
    }

    std::string text(const char* name, const char* object = ".") const {
        if (!hasAttribute(name, object)) {
            return {};
        }
        const hid_t attr = H5Aopen_by_name(m_file, object, name, H5P_DEFAULT, H5P_DEFAULT);
        const hid_t type = H5Aget_type(attr);
        char* value = nullptr;
        H5Aread(attr, type, &value);
        std::string out = value != nullptr ? value : "";
        H5free_memory(value);
        H5Tclose(type);
        H5Aclose(attr);
        return out;
    }

    // A 1-D dataset of variable-length strings (as the exports' Writer::strings writes them).
    std::vector<std::string> strings(const char* name) const {
        std::vector<std::string> out;
        const std::vector<hsize_t> shape = exists(name) ? dims(name) : std::vector<hsize_t>{};
        if (shape.size() != 1 || shape[0] == 0) {
            return out;
        }
        std::vector<char*> raw(shape[0], nullptr);
        const hid_t set = H5Dopen2(m_file, name, H5P_DEFAULT);
        const hid_t type = H5Dget_type(set);
        H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data());
        for (char* v : raw) {
            out.emplace_back(v != nullptr ? v : "");
            H5free_memory(v);
        }
        H5Tclose(type);
        H5Dclose(set);
        return out;
    }

private:
    hid_t m_file;
};

}  // namespace attnscope::testing
