#include "base/ZstdLibrary.h"

#include "base/LazyLibrary.h"

namespace sb {
namespace {

ZstdLibrary g_library;

// The soname Debian's libzstd1 installs, which the package depends on.
constexpr const char* kSoname = "libzstd.so.1";

} // namespace

SB_DEFINE_LAZY_LIBRARY(ZstdLibrary, g_library, loadZstd, "zstd", kSoname, 0, "", SB_ZSTD_FUNCTIONS)

} // namespace sb
