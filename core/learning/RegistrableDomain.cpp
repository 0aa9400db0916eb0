#include "learning/RegistrableDomain.h"

#include "base/PslLibrary.h"
#include "policy/NetworkRules.h"

namespace sb {
namespace {

// The newest list on this machine (the publicsuffix package's), else the one built in.
const psl_ctx_t* suffixList(const PslLibrary& psl)
{
    static const psl_ctx_t* list = [&psl] {
        const psl_ctx_t* latest = psl.psl_latest(nullptr);
        return latest != nullptr ? latest : psl.psl_builtin();
    }();
    return list;
}

} // namespace

Result<std::optional<RegistrableDomain>> registrableDomain(std::string_view normalisedHost)
{
    using Answer = std::optional<RegistrableDomain>;
    if (ipLiteral(normalisedHost)) return Answer();
    auto psl = loadPsl();
    if (!psl) return psl.error();
    const psl_ctx_t* list = suffixList(**psl);
    if (list == nullptr) return Answer();
    const std::string host(normalisedHost);
    const char* any = (*psl)->psl_registrable_domain(list, host.c_str());
    if (any == nullptr) return Answer();
    RegistrableDomain out{any, false};
    const auto dot = out.domain.find('.');
    // Without the list's implicit "*" rule, which makes any top-level domain ("org", "example")
    // a suffix of every section and every domain a tenant.
    if (dot != std::string::npos)
        out.tenant = (*psl)->psl_is_public_suffix2(list, out.domain.c_str() + dot + 1,
                                                   PSL_TYPE_PRIVATE | PSL_TYPE_NO_STAR_RULE) != 0;
    return Answer(std::move(out));
}

} // namespace sb
