// Helpers shared by the recording tests: real SQLite files in temporary folders.
#pragma once

#include "TestSupport.h"
#include "recording/RecordingSqlite.h"
#include "recording/RecordingStore.h"
#include "recording/RecordingWriter.h"

#include <gtest/gtest.h>
#include <string>

namespace sbtest {

inline sb::SessionRecordInfo recordInfo(const std::string& id, unsigned rows = 24,
                                        unsigned cols = 80)
{
    sb::SessionRecordInfo info;
    info.id = id;
    info.command = {"bash", "-c", "make test"};
    info.workspace = "/home/user/project";
    info.policy = {{"version", 1}, {"network", {{"mode", "none"}}}};
    info.rows = rows;
    info.cols = cols;
    return info;
}

inline std::int64_t queryInt(const std::filesystem::path& db, const std::string& sql)
{
    auto d = sb::SqliteDb::open(db, false, false);
    if (!d) return -1;
    auto v = d->queryInt(sql);
    return v ? *v : -1;
}

inline std::string integrityCheck(const std::filesystem::path& db)
{
    auto d = sb::SqliteDb::open(db, false, false);
    if (!d) return d.error().describe();
    auto stmt = d->prepare("PRAGMA integrity_check");
    if (!stmt) return stmt.error().describe();
    auto row = stmt->step();
    if (!row || !*row) return "no result";
    std::string result = stmt->columnText(0);
    // The text index has its own check.
    if (auto e =
            d->exec("INSERT INTO terminal_text(terminal_text, rank) VALUES('integrity-check', 0)"))
        return "fts: " + e->describe();
    return result;
}

inline std::string recordedOutput(sb::RecordingStore& store, const std::string& id)
{
    std::string out;
    auto e = store.forEachEvent(id, 0, INT64_MAX, [&](const sb::RecordedEvent& ev) {
        if (ev.kind == sb::EventKind::Output) out += ev.data;
        return true;
    });
    EXPECT_FALSE(e) << e->describe();
    return out;
}

} // namespace sbtest
