#include "base/PslLibrary.h"

#include "base/LazyLibrary.h"

namespace sb {
namespace {

PslLibrary g_library;

// The soname Debian's libpsl5 installs, which the package depends on.
constexpr const char* kSoname = "libpsl.so.5";

} // namespace

SB_DEFINE_LAZY_LIBRARY(PslLibrary, g_library, loadPsl, "libpsl", kSoname, 0, "", SB_PSL_FUNCTIONS)

} // namespace sb
