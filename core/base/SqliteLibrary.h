// SQLite, loaded when the first database opens rather than when the program starts. The library
// is linked -z now and resolves ~1,600 symbols as it loads: ~0.6 ms before main() of every
// sandbench-cli, on the way to the sandbox's first exec, although `run` opens its database on the
// recording's thread while init builds the sandbox (docs/benchmarks-log.md, "Findings: where the
// cold start went").
#pragma once

#include "base/Error.h"

#include <sqlite3.h>

namespace sb {

// The SQLite functions Sandbench calls, all in RecordingSqlite.cpp.
#define SB_SQLITE_FUNCTIONS(X)                                                                     \
    X(bind_blob)                                                                                   \
    X(bind_double)                                                                                 \
    X(bind_int64)                                                                                  \
    X(bind_null)                                                                                   \
    X(bind_text)                                                                                   \
    X(changes)                                                                                     \
    X(clear_bindings)                                                                              \
    X(close_v2)                                                                                    \
    X(column_blob)                                                                                 \
    X(column_bytes)                                                                                \
    X(column_double)                                                                               \
    X(column_int64)                                                                                \
    X(column_text)                                                                                 \
    X(column_type)                                                                                 \
    X(db_config)                                                                                   \
    X(errmsg)                                                                                      \
    X(errstr)                                                                                      \
    X(exec)                                                                                        \
    X(extended_errcode)                                                                            \
    X(extended_result_codes)                                                                       \
    X(finalize)                                                                                    \
    X(free)                                                                                        \
    X(last_insert_rowid)                                                                           \
    X(open_v2)                                                                                     \
    X(prepare_v2)                                                                                  \
    X(reset)                                                                                       \
    X(step)                                                                                        \
    X(system_errno)

struct SqliteLibrary {
#define SB_SQLITE_POINTER(name) decltype(&::sqlite3_##name) name = nullptr;
    SB_SQLITE_FUNCTIONS(SB_SQLITE_POINTER)
#undef SB_SQLITE_POINTER
};

// Loads libsqlite3 (once, thread-safe) and returns its functions, or why it could not.
Result<const SqliteLibrary*> loadSqlite();

// The library once loadSqlite() succeeded: every open connection implies it.
const SqliteLibrary& sqlite();

} // namespace sb
