#include "recording/RecordingSqlite.h"

#include "base/ProcessLimits.h"
#include "base/SqliteLibrary.h"

#include <cerrno>
#include <utility>

namespace fs = std::filesystem;

namespace sb {

SqliteDb::~SqliteDb()
{
    if (m_db != nullptr) sqlite().close_v2(m_db);
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)), m_file(std::move(other.m_file))
{
}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept
{
    if (this != &other) {
        if (m_db != nullptr) sqlite().close_v2(m_db);
        m_db = std::exchange(other.m_db, nullptr);
        m_file = std::move(other.m_file);
    }
    return *this;
}

Result<SqliteDb> SqliteDb::open(const fs::path& file, bool create, bool readOnly)
{
    if (auto loaded = loadSqlite(); !loaded) return loaded.error();
    SqliteDb db;
    db.m_file = file;
    int flags = SQLITE_OPEN_NOMUTEX | (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE);
    if (create && !readOnly) flags |= SQLITE_OPEN_CREATE;
    int rc = sqlite().open_v2(file.c_str(), &db.m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        Error e = db.errorFromCode(rc, "open");
        return e;
    }
    sqlite().extended_result_codes(db.m_db, 1);
    return db;
}

Error SqliteDb::errorFromCode(int code, const std::string& what) const
{
    int primary = code & 0xff;
    std::string detail = m_db != nullptr ? sqlite().errmsg(m_db) : sqlite().errstr(code);
    std::string message = "recording database " + m_file.string() + ": " + what + ": " + detail;
    switch (primary) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return Error{ErrorCode::InvalidInput, 0,
                     message + " (the file is damaged or not a Sandbench recording database; "
                               "move it aside to start a new one)"};
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
        return Error{ErrorCode::System, 0,
                     message + " (check that " + m_file.parent_path().string() +
                         " exists and is writable)"};
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return Error{ErrorCode::Conflict, EBUSY, message};
    case SQLITE_FULL:
        return Error{ErrorCode::System, ENOSPC, message};
    case SQLITE_IOERR: {
        // The system call's errno says more than "disk I/O error". SQLite's copy of it is the
        // thread's errno after its clean-up, so a write that stopped at a file-size limit
        // (ulimit -f) is told by the files' sizes.
        int err = m_db != nullptr ? sqlite().system_errno(m_db) : 0;
        for (const char* suffix : {"", "-wal", "-journal"})
            if (code == SQLITE_IOERR_WRITE && reachedFileSizeLimit(m_file.string() + suffix))
                err = EFBIG;
        return Error{ErrorCode::System, err, message};
    }
    default:
        return Error{ErrorCode::Internal, 0, message};
    }
}

bool mayPass(const Error& e)
{
    return e.sysErrno == EBUSY || e.sysErrno == ENOSPC;
}

Error SqliteDb::error(const std::string& what) const
{
    return errorFromCode(m_db != nullptr ? sqlite().extended_errcode(m_db) : SQLITE_ERROR, what);
}

Status SqliteDb::exec(std::string_view sql)
{
    std::string text(sql);
    char* msg = nullptr;
    int rc = sqlite().exec(m_db, text.c_str(), nullptr, nullptr, &msg);
    sqlite().free(msg);
    if (rc != SQLITE_OK) return errorFromCode(rc, "run '" + text.substr(0, 60) + "'");
    return {};
}

Result<SqliteStatement> SqliteDb::prepare(std::string_view sql)
{
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite().prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
    if (rc != SQLITE_OK)
        return errorFromCode(rc, "prepare '" + std::string(sql.substr(0, 60)) + "'");
    return SqliteStatement(this, stmt);
}

Result<std::int64_t> SqliteDb::queryInt(std::string_view sql)
{
    auto stmt = prepare(sql);
    if (!stmt) return stmt.error();
    auto row = stmt->step();
    if (!row) return row.error();
    if (!*row) return Error{ErrorCode::Internal, 0, "no result for '" + std::string(sql) + "'"};
    return stmt->columnInt(0);
}

void SqliteDb::keepWalOnClose()
{
    sqlite().db_config(m_db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
}

std::int64_t SqliteDb::lastInsertId() const
{
    return sqlite().last_insert_rowid(m_db);
}
int SqliteDb::changes() const
{
    return sqlite().changes(m_db);
}

SqliteStatement::~SqliteStatement()
{
    if (m_stmt != nullptr) sqlite().finalize(m_stmt);
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : m_db(other.m_db), m_stmt(std::exchange(other.m_stmt, nullptr))
{
}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept
{
    if (this != &other) {
        if (m_stmt != nullptr) sqlite().finalize(m_stmt);
        m_db = other.m_db;
        m_stmt = std::exchange(other.m_stmt, nullptr);
    }
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value)
{
    sqlite().bind_int64(m_stmt, index, value);
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value)
{
    sqlite().bind_double(m_stmt, index, value);
    return *this;
}

SqliteStatement& SqliteStatement::bindText(int index, std::string_view text, bool stable)
{
    sqlite().bind_text(m_stmt, index, text.data(), static_cast<int>(text.size()),
                       stable ? SQLITE_STATIC : SQLITE_TRANSIENT);
    return *this;
}

SqliteStatement& SqliteStatement::bindBlob(int index, std::string_view bytes, bool stable)
{
    // A zero-length blob must still be a blob, not NULL: give SQLite a valid pointer.
    static const char empty = 0;
    sqlite().bind_blob(m_stmt, index, bytes.empty() ? &empty : bytes.data(),
                       static_cast<int>(bytes.size()), stable ? SQLITE_STATIC : SQLITE_TRANSIENT);
    return *this;
}

SqliteStatement& SqliteStatement::bindNull(int index)
{
    sqlite().bind_null(m_stmt, index);
    return *this;
}

Result<bool> SqliteStatement::step(const char* what)
{
    int rc = sqlite().step(m_stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    Error e = m_db->errorFromCode(rc, what);
    sqlite().reset(m_stmt);
    return e;
}

Status SqliteStatement::run(const char* what)
{
    // No clear_bindings: statements run again are always fully re-bound, and clearing costs
    // measurably at the writer's rates.
    auto r = step(what);
    sqlite().reset(m_stmt);
    if (!r) return r.error();
    return {};
}

void SqliteStatement::reset()
{
    sqlite().reset(m_stmt);
    sqlite().clear_bindings(m_stmt);
}

std::int64_t SqliteStatement::columnInt(int index) const
{
    return sqlite().column_int64(m_stmt, index);
}

double SqliteStatement::columnDouble(int index) const
{
    return sqlite().column_double(m_stmt, index);
}

std::string SqliteStatement::columnText(int index) const
{
    const unsigned char* text = sqlite().column_text(m_stmt, index);
    int size = sqlite().column_bytes(m_stmt, index);
    return text != nullptr ? std::string(reinterpret_cast<const char*>(text), size) : std::string();
}

std::string_view SqliteStatement::columnBytes(int index) const
{
    const void* data = sqlite().column_blob(m_stmt, index);
    int size = sqlite().column_bytes(m_stmt, index);
    return data != nullptr ? std::string_view(static_cast<const char*>(data), size)
                           : std::string_view();
}

bool SqliteStatement::columnIsNull(int index) const
{
    return sqlite().column_type(m_stmt, index) == SQLITE_NULL;
}

} // namespace sb
