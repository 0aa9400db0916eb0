// Full-text search over terminal output, and the screen at a point in time.
#include "recording/RecordingCodec.h"
#include "recording/RecordingKeyframes.h"
#include "recording/RecordingStore.h"
#include "recording/RecordingText.h"

namespace sb {
namespace {

// FTS narrows to chunks holding every word; the exact (loose) phrase is then checked in the
// chunk text. Bound the work when words are common but the phrase is rare.
constexpr size_t kMaxCandidates = 5000;

} // namespace

Result<std::vector<SearchHit>> RecordingStore::search(const std::string& text,
                                                      const std::string& sessionId, size_t limit)
{
    std::string query = ftsQuery(text);
    if (query.empty()) return inputError("search text '" + text + "' has no word to look for");
    std::int64_t only = -1;
    if (!sessionId.empty()) {
        auto s = sid(sessionId);
        if (!s) return s.error();
        only = *s;
    }
    auto stmt = m_db.prepare(
        "SELECT s.id, e.t_ns, e.enc, e.data, e.sid, e.seq FROM terminal_text f "
        "JOIN events e ON e.id = f.rowid JOIN sessions s ON s.sid = e.sid "
        "WHERE terminal_text MATCH ?1 AND (?2 < 0 OR e.sid = ?2) ORDER BY f.rowid DESC");
    if (!stmt) return stmt.error();
    stmt->bindText(1, query).bind(2, only);
    std::vector<SearchHit> hits;
    for (size_t candidates = 0; hits.size() < limit && candidates < kMaxCandidates; ++candidates) {
        auto row = stmt->step("search terminal text");
        if (!row) return row.error();
        if (!*row) break;
        auto raw = decodeBlob(stmt->columnBytes(3), static_cast<int>(stmt->columnInt(2)));
        if (!raw) continue;
        // A fresh stripper per chunk: a sequence split at the chunk's start may leave a few
        // stray characters, which only matters for the snippet.
        std::string chunkText = TerminalTextStripper().strip(*raw);
        size_t length = 0;
        size_t pos = findLoosely(chunkText, text, length);
        if (pos == std::string::npos) continue;
        hits.push_back(
            SearchHit{stmt->columnText(0), stmt->columnInt(1), snippet(chunkText, pos, length)});
    }
    return hits;
}

Status RecordingStore::screenAt(const std::string& id, std::int64_t tNs, ScreenModel& screen)
{
    auto s = sid(id);
    if (!s) return s.error();
    auto last = rebuildScreen(m_db, *s, tNs, screen);
    if (!last) return last.error();
    return {};
}

} // namespace sb
