#include "recording/RecordingIndex.h"

#include "recording/RecordingCodec.h"
#include "recording/RecordingTypes.h"

namespace sb {

Result<TextIndexer> TextIndexer::prepare(SqliteDb& db, TextIndexOp op)
{
    auto stmt =
        db.prepare(op == TextIndexOp::Add ? "INSERT INTO terminal_text(rowid, text) VALUES (?1, ?2)"
                                          : "INSERT INTO terminal_text(terminal_text, rowid, text) "
                                            "VALUES ('delete', ?1, ?2)");
    if (!stmt) return stmt.error();
    return TextIndexer(std::move(stmt.value()));
}

Status TextIndexer::chunk(std::int64_t rowid, std::string_view raw)
{
    m_text.clear();
    m_stripper.feed(raw, m_text);
    if (m_text.find_first_not_of(" \t\n") == std::string::npos) return {};
    m_stmt.bind(1, rowid).bindText(2, m_text, true);
    return m_stmt.run("index terminal text");
}

Status indexSessionText(SqliteDb& db, std::int64_t sid, TextIndexOp op)
{
    auto indexer = TextIndexer::prepare(db, op);
    if (!indexer) return indexer.error();
    auto rows = db.prepare("SELECT id, enc, data FROM events WHERE sid = ?1 AND type = ?2 "
                           "ORDER BY t_ns, seq");
    if (!rows) return rows.error();
    rows->bind(1, sid).bind(2, static_cast<int>(EventKind::Output));
    while (true) {
        auto row = rows->step("read terminal output");
        if (!row) return row.error();
        if (!*row) return {};
        auto bytes = decodeBlob(rows->columnBytes(2), static_cast<int>(rows->columnInt(1)));
        if (!bytes) return bytes.error();
        if (auto e = indexer->chunk(rows->columnInt(0), *bytes)) return e;
    }
}

} // namespace sb
