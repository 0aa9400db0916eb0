#include "base/VtermLibrary.h"

#include "base/LazyLibrary.h"

namespace sb {
namespace {

VtermLibrary g_library;

// The soname Debian's libvterm0 installs, which the package depends on.
constexpr const char* kSoname = "libvterm.so.0";

} // namespace

SB_DEFINE_LAZY_LIBRARY(VtermLibrary, g_library, loadVterm, "libvterm", kSoname, 0, "",
                       SB_VTERM_FUNCTIONS)

} // namespace sb
