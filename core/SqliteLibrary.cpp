#include "SqliteLibrary.h"

#include <dlfcn.h>
#include <mutex>
#include <string>

namespace sb {
namespace {

SqliteLibrary g_library;

// The soname Debian's libsqlite3-0 installs, which the package depends on.
constexpr const char* kSoname = "libsqlite3.so.0";

std::string loadInto(SqliteLibrary& lib)
{
    void* handle = ::dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return ::dlerror();
#define SB_SQLITE_RESOLVE(name)                                                                    \
    lib.name = reinterpret_cast<decltype(lib.name)>(::dlsym(handle, "sqlite3_" #name));            \
    if (lib.name == nullptr) return std::string(kSoname) + " has no sqlite3_" #name;
    SB_SQLITE_FUNCTIONS(SB_SQLITE_RESOLVE)
#undef SB_SQLITE_RESOLVE
    return {};
}

} // namespace

Result<const SqliteLibrary*> loadSqlite()
{
    static std::once_flag once;
    static std::string failure;
    std::call_once(once, [] { failure = loadInto(g_library); });
    if (!failure.empty()) return Error{ErrorCode::Unsupported, 0, "cannot load SQLite: " + failure};
    return &g_library;
}

const SqliteLibrary& sqlite()
{
    return g_library;
}

} // namespace sb
