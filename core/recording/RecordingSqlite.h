// A thin RAII layer over SQLite's C API for the recording store: an owned connection, prepared
// statements with typed binds, and errors as sb::Error values that name the database file.
// SQLite itself is loaded by the first open (SqliteLibrary.h).
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace sb {

class SqliteStatement;

// An error that may pass if tried again later: the database locked by another process (EBUSY)
// or a full disk (ENOSPC), as the errors below carry them.
bool mayPass(const Error& e);

class SqliteDb {
  public:
    SqliteDb() = default;
    ~SqliteDb();
    SqliteDb(SqliteDb&& other) noexcept;
    SqliteDb& operator=(SqliteDb&& other) noexcept;
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    // Opens (creating when `create`) the file. SQLite opens lazily, so the caller should run a
    // query (e.g. the pragmas) before trusting the file is a database.
    static Result<SqliteDb> open(const std::filesystem::path& file, bool create, bool readOnly);

    Status exec(std::string_view sql);
    Result<SqliteStatement> prepare(std::string_view sql);
    // The single integer a query like "PRAGMA user_version" returns.
    Result<std::int64_t> queryInt(std::string_view sql);
    // SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE: the last connection to close leaves the WAL as it is.
    void keepWalOnClose();
    std::int64_t lastInsertId() const;
    int changes() const;

    // "recordings.db: <what>: <sqlite message>"; ErrorCode::InvalidInput for a corrupt file.
    Error error(const std::string& what) const;
    Error errorFromCode(int code, const std::string& what) const;

    const std::filesystem::path& file() const { return m_file; }

  private:
    sqlite3* m_db = nullptr;
    std::filesystem::path m_file;
};

class SqliteStatement {
  public:
    SqliteStatement() = default;
    SqliteStatement(const SqliteDb* db, sqlite3_stmt* stmt) : m_db(db), m_stmt(stmt) {}
    ~SqliteStatement();
    SqliteStatement(SqliteStatement&& other) noexcept;
    SqliteStatement& operator=(SqliteStatement&& other) noexcept;
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    // Binds are 1-based like SQLite's. Text and blobs are copied (SQLITE_TRANSIENT) unless
    // `stable`: then they must outlive the next step().
    SqliteStatement& bind(int index, std::int64_t value);
    SqliteStatement& bind(int index, int value) { return bind(index, std::int64_t{value}); }
    SqliteStatement& bind(int index, double value);
    SqliteStatement& bindText(int index, std::string_view text, bool stable = false);
    SqliteStatement& bindBlob(int index, std::string_view bytes, bool stable = false);
    SqliteStatement& bindNull(int index);

    // true: a row is ready; false: done. Errors name `what`.
    Result<bool> step(const char* what = "query");
    // Runs a statement that returns no rows, then resets it for reuse.
    Status run(const char* what = "update");
    void reset();

    std::int64_t columnInt(int index) const;
    double columnDouble(int index) const;
    std::string columnText(int index) const;
    std::string_view columnBytes(int index) const; // valid until the next step/reset
    bool columnIsNull(int index) const;

  private:
    const SqliteDb* m_db = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
};

} // namespace sb
