// libarchive, opened when an image is imported (LazyLibrary.h): no other command needs it.
#pragma once

#include "base/Error.h"

#include <archive.h>
#include <archive_entry.h>

namespace sb {

// The libarchive functions Sandbench calls, all in ImageArchive.cpp.
#define SB_ARCHIVE_FUNCTIONS(X)                                                                    \
    X(archive_error_string)                                                                        \
    X(archive_read_new)                                                                            \
    X(archive_read_support_filter_all)                                                             \
    X(archive_read_support_format_tar)                                                             \
    X(archive_read_open_filename)                                                                  \
    X(archive_read_next_header)                                                                    \
    X(archive_read_next_header2)                                                                   \
    X(archive_read_data_block)                                                                     \
    X(archive_read_free)                                                                           \
    X(archive_read_disk_new)                                                                       \
    X(archive_read_disk_open)                                                                      \
    X(archive_read_disk_set_symlink_physical)                                                      \
    X(archive_read_disk_descend)                                                                   \
    X(archive_entry_new)                                                                           \
    X(archive_entry_free)                                                                          \
    X(archive_entry_clear)                                                                         \
    X(archive_entry_pathname)                                                                      \
    X(archive_entry_set_pathname)                                                                  \
    X(archive_entry_filetype)                                                                      \
    X(archive_entry_perm)                                                                          \
    X(archive_entry_set_perm)                                                                      \
    X(archive_entry_symlink)                                                                       \
    X(archive_entry_hardlink)                                                                      \
    X(archive_entry_set_hardlink)                                                                  \
    X(archive_entry_size)                                                                          \
    X(archive_write_disk_new)                                                                      \
    X(archive_write_disk_set_options)                                                              \
    X(archive_write_header)                                                                        \
    X(archive_write_data_block)                                                                    \
    X(archive_write_finish_entry)                                                                  \
    X(archive_write_close)                                                                         \
    X(archive_write_free)

struct ArchiveLibrary {
#define SB_ARCHIVE_POINTER(name) decltype(&::name) name = nullptr;
    SB_ARCHIVE_FUNCTIONS(SB_ARCHIVE_POINTER)
#undef SB_ARCHIVE_POINTER
};

// Opens libarchive (once, thread-safe) and returns its functions, or why it could not.
Result<const ArchiveLibrary*> loadArchive();

} // namespace sb
