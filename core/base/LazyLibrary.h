// Shared libraries opened when first needed rather than when the program starts. Each library a
// program links costs every start its mapping and relocation, and `sandbench-cli run` copies
// what it mapped into init and the command as it forks them (~0.1-0.2 ms of a cold start for
// two small libraries, BENCHMARKS.md), while `run` needs SQLite, libvterm and zstd only on the
// recording's thread, or not at all. Each library's functions are a table of pointers
// (SqliteLibrary.h, VtermLibrary.h, ZstdLibrary.h; http/CivetwebLibrary.h for `serve`'s HTTP
// server and ZlibLibrary.h for its gzip uploads, image/ArchiveLibrary.h for `image import`). The
// package depends on these libraries by name: dpkg-shlibdeps cannot see them.
#pragma once

#include "base/Error.h"

#include <mutex>
#include <string>

namespace sb {

// Fills function pointers from an opened library, keeping the first failure.
class SymbolResolver {
  public:
    SymbolResolver(void* handle, const char* soname) : m_handle(handle), m_soname(soname) {}
    template <class Function> void operator()(const std::string& symbol, Function& out)
    {
        if (m_failure.empty()) out = reinterpret_cast<Function>(find(symbol));
    }
    const std::string& failure() const { return m_failure; }

  private:
    void* find(const std::string& symbol);
    void* m_handle;
    const char* m_soname;
    std::string m_failure;
};

// A library's one load in the process, by whichever thread asks first.
class LazyLoad {
  public:
    // Runs `load` the first time; its answer ("" once loaded, else why not) holds for every
    // later call. `library` names it in the error.
    Status ensure(const char* library, std::string (*load)());

  private:
    std::once_flag m_once;
    std::string m_failure;
};

// dlopen(`soname`, RTLD_NOW | RTLD_LOCAL | `flags`), or null and why not.
void* openLibrary(const char* soname, int flags, std::string& failure);

// Opens `soname` and hands it to `fill`; "" once every symbol was found, else why not.
template <class Fill> std::string loadLibrary(const char* soname, int flags, Fill fill)
{
    std::string failure;
    void* handle = openLibrary(soname, flags, failure);
    if (handle == nullptr) return failure;
    SymbolResolver resolve(handle, soname);
    fill(resolve);
    return resolve.failure();
}

// The table `loader` gives, or null when the library cannot be opened (the loader says why).
// For callers that keep it in a static: their calls then cost no once-check.
template <class Table> const Table* loadedOrNull(Result<const Table*> (*loader)())
{
    auto loaded = loader();
    return loaded ? *loaded : nullptr;
}

// Defines `Result<const Table*> loader()` in the enclosing namespace: its first call opens
// `soname` and fills `table` with the functions FUNCTIONS lists (an X macro), each found as
// `prefix` + its name; every later call gives the same table, or the same refusal, which names
// `label`.
#define SB_DEFINE_LAZY_LIBRARY(Table, table, loader, label, soname, flags, prefix, FUNCTIONS)      \
    ::sb::Result<const Table*> loader()                                                            \
    {                                                                                              \
        static ::sb::LazyLoad once;                                                                \
        auto load = []() -> std::string {                                                          \
            return ::sb::loadLibrary(soname, flags, [](::sb::SymbolResolver& sbResolve) {          \
                Table& sbTable = table;                                                            \
                const std::string sbPrefix = prefix;                                               \
                FUNCTIONS(SB_LAZY_LIBRARY_ENTRY)                                                   \
            });                                                                                    \
        };                                                                                         \
        if (auto e = once.ensure(label, load)) return *e;                                          \
        return &table;                                                                             \
    }
#define SB_LAZY_LIBRARY_ENTRY(name) sbResolve(sbPrefix + #name, sbTable.name);

} // namespace sb
