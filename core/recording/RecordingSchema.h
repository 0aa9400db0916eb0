// The recording database's schema as numbered migration steps (PRAGMA user_version), in the
// manner of OpenSnitch's upgrade_N.sql: step N takes a version N-1 database to version N,
// including any data it must derive (text index, keyframes) from rows already there.
#pragma once

#include "base/Error.h"
#include "recording/RecordingSqlite.h"

#include <filesystem>

namespace sb {

int latestRecordingSchema();
// Applies the missing steps up to `target` in one write transaction; fails on a database made
// by a newer Sandbench. Safe against a concurrent migration by another process.
Status migrateRecordingDb(SqliteDb& db, int target = -1);
// "… has schema version N, newer than this Sandbench knows …"
Error newerSchemaError(const std::filesystem::path& file, int version);

} // namespace sb
