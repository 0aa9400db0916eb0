#include "SqliteLibrary.h"

#include <dlfcn.h>
#include <mutex>
#include <string>

namespace sb {
namespace {

SqliteLibrary g_library;

// The soname Debian's libsqlite3-0 installs, which the package depends on.
constexpr const char* kSoname = "libsqlite3.so.0";

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kSanitized = 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr int kSanitized = 1;
#else
constexpr int kSanitized = 0;
#endif
#else
constexpr int kSanitized = 0;
#endif

// Debian's libsqlite3 is linked -z now and calls its own exported functions through its PLT:
// RTLD_DEEPBIND finds them in the library itself first instead of searching the program and
// every library before it, for each of ~1,300 bindings (~85 us of each session's start). The
// sanitizers' runtimes refuse it: their interceptors must stay first.
constexpr int kBinding = kSanitized ? 0 : RTLD_DEEPBIND;

std::string loadInto(SqliteLibrary& lib)
{
    void* handle = ::dlopen(kSoname, RTLD_NOW | RTLD_LOCAL | kBinding);
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
