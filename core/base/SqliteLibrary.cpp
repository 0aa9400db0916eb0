#include "base/SqliteLibrary.h"

#include "base/LazyLibrary.h"

#include <dlfcn.h>

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

} // namespace

SB_DEFINE_LAZY_LIBRARY(SqliteLibrary, g_library, loadSqlite, "SQLite", kSoname, kBinding,
                       "sqlite3_", SB_SQLITE_FUNCTIONS)

const SqliteLibrary& sqlite()
{
    return g_library;
}

} // namespace sb
