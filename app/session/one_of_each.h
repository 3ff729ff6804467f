// One object of each kind, made on first use and owned here: how the session holds the analyses'
// documents and the service their jobs, without naming any analysis. A kind is a class derived
// from Base whose constructor takes the owner.
#pragma once

#include <memory>
#include <typeindex>
#include <utility>
#include <vector>

namespace attnscope::app {

template <class Base>
class OneOfEach {
public:
    template <class Kind, class Owner>
    Kind& get(Owner& owner) {
        const std::type_index key(typeid(Kind));
        for (const auto& [kind, held] : m_items) {
            if (kind == key) {
                return static_cast<Kind&>(*held);
            }
        }
        m_items.emplace_back(key, std::make_unique<Kind>(owner));
        return static_cast<Kind&>(*m_items.back().second);
    }

    // In the order they were made.
    template <class Visit>
    void forEach(Visit visit) const {
        for (const auto& entry : m_items) {
            visit(*entry.second);
        }
    }

private:
    std::vector<std::pair<std::type_index, std::unique_ptr<Base>>> m_items;
};

}  // namespace attnscope::app
