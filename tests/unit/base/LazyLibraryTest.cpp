// LazyLibrary.h: a table of a shared library's functions filled on first use, and refusals
// that name the library and what is missing (libvterm, zstd and SQLite are opened this way).
#include "base/LazyLibrary.h"

#include <cstring>
#include <gtest/gtest.h>
#include <unistd.h>

namespace {

#define SB_TEST_LIBC_FUNCTIONS(X)                                                                  \
    X(strlen)                                                                                      \
    X(getpid)

struct LibcTable {
#define SB_TEST_POINTER(name) decltype(&::name) name = nullptr;
    SB_TEST_LIBC_FUNCTIONS(SB_TEST_POINTER)
#undef SB_TEST_POINTER
};

LibcTable g_libc, g_absentLibrary, g_absentSymbols;

SB_DEFINE_LAZY_LIBRARY(LibcTable, g_libc, loadLibc, "the C library", "libc.so.6", 0, "",
                       SB_TEST_LIBC_FUNCTIONS)
SB_DEFINE_LAZY_LIBRARY(LibcTable, g_absentLibrary, loadAbsentLibrary, "a library",
                       "libsandbench-absent.so.9", 0, "", SB_TEST_LIBC_FUNCTIONS)
SB_DEFINE_LAZY_LIBRARY(LibcTable, g_absentSymbols, loadAbsentSymbols, "the C library", "libc.so.6",
                       0, "sandbench_absent_", SB_TEST_LIBC_FUNCTIONS)

} // namespace

TEST(LazyLibrary, FillsTheTableOnceAndItsFunctionsWork)
{
    EXPECT_EQ(g_libc.strlen, nullptr) << "nothing is opened before it is asked for";
    auto loaded = loadLibc();
    ASSERT_TRUE(loaded) << loaded.error().message;
    EXPECT_EQ(*loaded, &g_libc);
    EXPECT_EQ((*loaded)->strlen("sandbench"), 9u);
    EXPECT_EQ((*loaded)->getpid(), ::getpid());
    auto again = loadLibc();
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *loaded);
}

TEST(LazyLibrary, AMissingLibraryIsNamedAndStaysRefused)
{
    auto loaded = loadAbsentLibrary();
    ASSERT_FALSE(loaded);
    EXPECT_EQ(loaded.error().code, sb::ErrorCode::Unsupported);
    EXPECT_EQ(loaded.error().message,
              "cannot load a library: libsandbench-absent.so.9: cannot open shared object file: "
              "No such file or directory");
    auto again = loadAbsentLibrary();
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().message, loaded.error().message);
}

TEST(LazyLibrary, AMissingFunctionIsNamed)
{
    auto loaded = loadAbsentSymbols();
    ASSERT_FALSE(loaded);
    EXPECT_EQ(loaded.error().message,
              "cannot load the C library: libc.so.6 has no sandbench_absent_strlen");
}
