#include "base/NftablesLibrary.h"

#include "base/LazyLibrary.h"

namespace sb {
namespace {

NftablesLibrary g_library;

// The soname Debian's libnftables1 installs, which the package depends on.
constexpr const char* kSoname = "libnftables.so.1";

} // namespace

SB_DEFINE_LAZY_LIBRARY(NftablesLibrary, g_library, loadNftables, "libnftables", kSoname, 0, "",
                       SB_NFTABLES_FUNCTIONS)

} // namespace sb
