#include "attnscope/forward/patches.h"

#include <algorithm>

#include "attnscope/base/error.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/model/model_spec.h"

namespace attnscope::forward {

namespace {

int kvHeads(const model::ModelSpec& spec) {
    return spec.nKvHeads > 0 ? spec.nKvHeads : spec.nHeads;
}

// How many units a head site has, and each unit's width in the recorded matrix.
int unitsOf(PatchSite site, const model::ModelSpec& spec) {
    return site == PatchSite::Key || site == PatchSite::Value ? kvHeads(spec) : spec.nHeads;
}

int widthOf(PatchSite site, const model::ModelSpec& spec) {
    switch (site) {
        case PatchSite::Query:
        case PatchSite::Key:
            return spec.headDimK;
        case PatchSite::HeadOutput:
        case PatchSite::Value:
            return spec.headDimV;
        default:
            return spec.dModel;
    }
}

// The source pass's record of the site's layer ([nTokens, all units' columns]).
const std::vector<Matrix>& recordOf(const ForwardResult& r, PatchSite site) {
    switch (site) {
        case PatchSite::Residual:
            return r.layerStates;
        case PatchSite::AttnOut:
            return r.layerAttnOut;
        case PatchSite::MlpOut:
            return r.layerMlpOut;
        case PatchSite::HeadOutput:
            return r.layerHeadOutputs;
        case PatchSite::Query:
            return r.layerQueries;
        case PatchSite::Key:
            return r.layerKeys;
        case PatchSite::Value:
            return r.layerValues;
    }
    return r.layerStates;
}

[[noreturn]] void fail(const ActivationPatch& p, const std::string& why) {
    throw InvalidArgument("patch " + describe(p) + ": " + why);
}

}  // namespace

std::string patchSiteName(PatchSite site) {
    switch (site) {
        case PatchSite::Residual:
            return "resid";
        case PatchSite::AttnOut:
            return "attn-out";
        case PatchSite::MlpOut:
            return "mlp-out";
        case PatchSite::HeadOutput:
            return "z";
        case PatchSite::Query:
            return "q";
        case PatchSite::Key:
            return "k";
        case PatchSite::Value:
            return "v";
    }
    return "?";
}

bool isHeadSite(PatchSite site) {
    return site == PatchSite::HeadOutput || site == PatchSite::Query || site == PatchSite::Key ||
           site == PatchSite::Value;
}

std::string describe(const ActivationPatch& p) {
    std::string text = patchSiteName(p.site);
    text += " L";
    text += std::to_string(p.layer);
    if (isHeadSite(p.site)) {
        text += p.site == PatchSite::Key || p.site == PatchSite::Value ? "G" : "H";
        text += std::to_string(p.unit);
    }
    text += p.position < 0 ? " @all" : " @" + std::to_string(p.position);
    return text;
}

int Patches::firstLayer(int nLayers) const {
    int first = nLayers;
    for (const ActivationPatch& p : items) {
        first = std::min(first, p.layer);
    }
    return first;
}

void checkPatches(const Patches& patches, const model::ModelSpec& spec, int nTokens) {
    for (const ActivationPatch& p : patches.items) {
        if (p.layer < 0 || p.layer >= spec.nLayers) {
            fail(p, "the model has layers 0-" + std::to_string(spec.nLayers - 1));
        }
        if (isHeadSite(p.site) && (p.unit < 0 || p.unit >= unitsOf(p.site, spec))) {
            fail(p, "the layer has " + std::to_string(unitsOf(p.site, spec)) +
                        (p.site == PatchSite::Key || p.site == PatchSite::Value ? " key/value heads"
                                                                                : " query heads"));
        }
        if (p.position < -1 || p.position >= nTokens) {
            fail(p, "the sequence has positions 0-" + std::to_string(nTokens - 1));
        }
        if (!p.source) {
            fail(p, "no source pass");
        }
        if (p.source->nTokens != nTokens || p.source->isCross()) {
            fail(p, "the source pass ran on " + std::to_string(p.source->nTokens) +
                        " tokens, this one on " + std::to_string(nTokens));
        }
        const std::vector<Matrix>& record = recordOf(*p.source, p.site);
        const auto layer = static_cast<std::size_t>(p.layer);
        const Eigen::Index columns =
            isHeadSite(p.site) ? Eigen::Index{unitsOf(p.site, spec)} * widthOf(p.site, spec)
                               : spec.dModel;
        if (record.size() <= layer || record[layer].rows() != nTokens ||
            record[layer].cols() != columns) {
            fail(p,
                 "the source pass recorded no such activations "
                 "(ForwardOptions::recordActivations, same model)");
        }
    }
}

void detail::applyPatches(const Patches& patches, PatchSite site, int layer,
                          const model::ModelSpec& spec, int firstUnit, Matrix& target) {
    const int width = widthOf(site, spec);
    const int units = static_cast<int>(target.cols()) / width;
    for (const ActivationPatch& p : patches.items) {
        if (p.site != site || p.layer != layer) {
            continue;
        }
        const int unit = isHeadSite(site) ? p.unit : 0;
        if (unit < firstUnit || unit >= firstUnit + units) {
            continue;
        }
        const Matrix& from = recordOf(*p.source, site)[static_cast<std::size_t>(layer)];
        const Eigen::Index sourceColumn = Eigen::Index{unit} * width;
        const Eigen::Index column = Eigen::Index{unit - firstUnit} * width;
        if (p.position < 0) {
            target.middleCols(column, width) = from.middleCols(sourceColumn, width);
        } else {
            target.row(p.position).segment(column, width) =
                from.row(p.position).segment(sourceColumn, width);
        }
    }
}

}  // namespace attnscope::forward
