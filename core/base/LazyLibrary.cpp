#include "base/LazyLibrary.h"

#include <dlfcn.h>

namespace sb {

void* SymbolResolver::find(const std::string& symbol)
{
    void* address = ::dlsym(m_handle, symbol.c_str());
    if (address == nullptr) m_failure = std::string(m_soname) + " has no " + symbol;
    return address;
}

void* openLibrary(const char* soname, int flags, std::string& failure)
{
    void* handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL | flags);
    if (handle == nullptr) failure = ::dlerror();
    return handle;
}

Status LazyLoad::ensure(const char* library, std::string (*load)())
{
    std::call_once(m_once, [this, load] { m_failure = load(); });
    if (m_failure.empty()) return {};
    return Error{ErrorCode::Unsupported, 0,
                 std::string("cannot load ") + library + ": " + m_failure};
}

} // namespace sb
