// Feeding terminal output into the full-text index. The index is contentless (it keeps no copy
// of the text), so removing a chunk means handing FTS5 the exact text it indexed: that text is
// derived deterministically from the chunks in order, by the same stripper, here.
#pragma once

#include "base/Error.h"
#include "recording/RecordingSqlite.h"
#include "recording/RecordingText.h"

#include <cstdint>
#include <string_view>

namespace sb {

enum class TextIndexOp { Add, Remove };

class TextIndexer {
  public:
    static Result<TextIndexer> prepare(SqliteDb& db, TextIndexOp op);
    // Adds (removes) the text of one output chunk, stored as events.id = `rowid`. Chunks of a
    // session must come in order: the stripper carries escape sequences across them.
    Status chunk(std::int64_t rowid, std::string_view raw);
    // Where the stripper stands between chunks: a writer whose transaction was rolled back
    // puts it back where it stood at the last commit.
    const TerminalTextStripper& stripper() const { return m_stripper; }
    void restore(const TerminalTextStripper& stripper) { m_stripper = stripper; }

  private:
    explicit TextIndexer(SqliteStatement stmt) : m_stmt(std::move(stmt)) {}
    SqliteStatement m_stmt;
    TerminalTextStripper m_stripper;
    std::string m_text;
};

Status indexSessionText(SqliteDb& db, std::int64_t sid, TextIndexOp op);

} // namespace sb
