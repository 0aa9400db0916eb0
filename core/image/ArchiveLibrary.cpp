#include "image/ArchiveLibrary.h"

#include "base/LazyLibrary.h"

namespace sb {
namespace {

ArchiveLibrary g_library;

// The soname Debian's libarchive13 installs, which the package depends on.
constexpr const char* kSoname = "libarchive.so.13";

} // namespace

SB_DEFINE_LAZY_LIBRARY(ArchiveLibrary, g_library, loadArchive, "libarchive", kSoname, 0, "",
                       SB_ARCHIVE_FUNCTIONS)

} // namespace sb
