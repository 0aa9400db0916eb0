#include "recording/RecordingKeyframes.h"

#include "recording/RecordingCodec.h"
#include "recording/RecordingTypes.h"

#include <nlohmann/json.hpp>

namespace sb {
namespace {

// Rows and columns of a resize event's payload, if it is well formed.
bool parseResize(std::string_view json, unsigned& rows, unsigned& cols)
{
    auto j = nlohmann::json::parse(json, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return false;
    auto r = j.find("rows"), c = j.find("cols");
    if (r == j.end() || c == j.end() || !r->is_number_unsigned() || !c->is_number_unsigned())
        return false;
    rows = r->get<unsigned>();
    cols = c->get<unsigned>();
    return rows > 0 && cols > 0 && rows <= ScreenModel::kMaxSide && cols <= ScreenModel::kMaxSide;
}

} // namespace

bool KeyframeBuilder::output(std::int64_t tNs, std::string_view bytes)
{
    m_screen.feed(bytes);
    m_bytesSince += bytes.size();
    return m_bytesSince >= kKeyframeEveryBytes ||
           (m_bytesSince > 0 && tNs - m_lastNs >= kKeyframeEveryNs);
}

Result<SqliteStatement> KeyframeBuilder::prepareInsert(SqliteDb& db)
{
    return db.prepare("INSERT OR REPLACE INTO keyframes (sid, t_ns, seq, rows, cols, enc, data) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
}

Keyframe KeyframeBuilder::take(std::int64_t tNs, std::int64_t seq)
{
    m_bytesSince = 0;
    m_lastNs = tNs;
    return Keyframe{tNs, seq, m_screen.rows(), m_screen.cols(), m_screen.snapshot()};
}

Status KeyframeBuilder::store(SqliteStatement& insert, std::int64_t sid, const Keyframe& k)
{
    EncodedBlob blob = encodeBlob(k.snapshot);
    insert.bind(1, sid).bind(2, k.tNs).bind(3, k.seq);
    insert.bind(4, static_cast<std::int64_t>(k.rows)).bind(5, static_cast<std::int64_t>(k.cols));
    insert.bind(6, static_cast<int>(blob.encoding)).bindBlob(7, blob.bytes, true);
    return insert.run("store keyframe");
}

Status buildKeyframes(SqliteDb& db, std::int64_t sid)
{
    if (auto e = ScreenModel::available()) return e;
    auto size = db.prepare("SELECT rows, cols FROM sessions WHERE sid = ?1");
    if (!size) return size.error();
    size->bind(1, sid);
    auto found = size->step("read session size");
    if (!found) return found.error();
    if (!*found) return {};
    KeyframeBuilder builder(static_cast<unsigned>(size->columnInt(0)),
                            static_cast<unsigned>(size->columnInt(1)));
    auto insert = KeyframeBuilder::prepareInsert(db);
    if (!insert) return insert.error();
    auto rows = db.prepare("SELECT seq, t_ns, type, enc, data FROM events WHERE sid = ?1 AND "
                           "type IN (0, 2) ORDER BY t_ns, seq");
    if (!rows) return rows.error();
    rows->bind(1, sid);
    while (true) {
        auto row = rows->step("read terminal output");
        if (!row) return row.error();
        if (!*row) return {};
        std::int64_t seq = rows->columnInt(0), t = rows->columnInt(1);
        auto kind = static_cast<EventKind>(rows->columnInt(2));
        auto data = decodeBlob(rows->columnBytes(4), static_cast<int>(rows->columnInt(3)));
        if (!data) return data.error();
        unsigned r = 0, c = 0;
        if (kind == EventKind::Resize && parseResize(*data, r, c))
            builder.resize(r, c);
        else if (kind == EventKind::Output && builder.output(t, *data))
            if (auto e = KeyframeBuilder::store(*insert, sid, builder.take(t, seq))) return e;
    }
}

Result<std::int64_t> rebuildScreen(SqliteDb& db, std::int64_t sid, std::int64_t tNs,
                                   ScreenModel& screen)
{
    if (auto e = ScreenModel::available()) return *e;
    auto keyframe = db.prepare("SELECT t_ns, seq, rows, cols, enc, data FROM keyframes "
                               "WHERE sid = ?1 AND t_ns <= ?2 ORDER BY t_ns DESC, seq DESC "
                               "LIMIT 1");
    if (!keyframe) return keyframe.error();
    keyframe->bind(1, sid).bind(2, tNs);
    auto found = keyframe->step("read keyframe");
    if (!found) return found.error();
    std::int64_t fromT = 0, lastSeq = -1;
    if (*found) {
        auto snapshot =
            decodeBlob(keyframe->columnBytes(5), static_cast<int>(keyframe->columnInt(4)));
        if (!snapshot) return snapshot.error();
        fromT = keyframe->columnInt(0);
        lastSeq = keyframe->columnInt(1);
        screen.restore(*snapshot, static_cast<unsigned>(keyframe->columnInt(2)),
                       static_cast<unsigned>(keyframe->columnInt(3)));
    } else {
        auto size = db.prepare("SELECT rows, cols FROM sessions WHERE sid = ?1");
        if (!size) return size.error();
        size->bind(1, sid);
        if (auto r = size->step("read session size"); !r || !*r)
            return r ? Error{ErrorCode::NotFound, 0, "recording: no such session"} : r.error();
        screen.restore({}, static_cast<unsigned>(size->columnInt(0)),
                       static_cast<unsigned>(size->columnInt(1)));
    }
    auto rows = db.prepare("SELECT seq, type, enc, data FROM events WHERE sid = ?1 AND "
                           "t_ns >= ?2 AND t_ns <= ?3 AND seq > ?4 AND type IN (0, 2) "
                           "ORDER BY t_ns, seq");
    if (!rows) return rows.error();
    rows->bind(1, sid).bind(2, fromT).bind(3, tNs).bind(4, lastSeq);
    while (true) {
        auto row = rows->step("read terminal output");
        if (!row) return row.error();
        if (!*row) return lastSeq;
        lastSeq = rows->columnInt(0);
        auto data = decodeBlob(rows->columnBytes(3), static_cast<int>(rows->columnInt(2)));
        if (!data) return data.error();
        unsigned r = 0, c = 0;
        if (static_cast<EventKind>(rows->columnInt(1)) == EventKind::Resize) {
            if (parseResize(*data, r, c)) screen.resize(r, c);
        } else {
            screen.feed(*data);
        }
    }
}

} // namespace sb
