#include "base/ZlibLibrary.h"

#include "base/LazyLibrary.h"

namespace sb {
namespace {

ZlibLibrary g_library;

// The soname Debian's zlib1g installs, which the package depends on.
constexpr const char* kSoname = "libz.so.1";

} // namespace

SB_DEFINE_LAZY_LIBRARY(ZlibLibrary, g_library, loadZlib, "zlib", kSoname, 0, "", SB_ZLIB_FUNCTIONS)

} // namespace sb
