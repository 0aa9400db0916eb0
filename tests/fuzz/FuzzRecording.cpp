// The recording readers (core/recording): what `show`, `search`, `replay`, `export` and the
// window's Replay tab read from a recordings database, which may be damaged or come from
// someone else. Each input becomes one session's rows in a real SQLite file (written with SQL,
// as a damaged or hostile file would hold them, not through the writer), which every reader
// then goes through. Checked beyond "no crash": a JSON Lines export is one JSON object per line.
//
// Input lines (the text form keeps the corpus readable; DATA takes \n \r \t \e \\ \xHH):
//   i ID                       the session's id (default "fuzz-session")
//   s ROWS COLS STATE STATUS   terminal size, state (running|ended|interrupted|…), exit status
//   c TEXT / p TEXT            the command (JSON array as stored) / the policy snapshot
//   e T KIND ENC DATA          an event as stored: time (ns), kind, encoding, bytes
//   z T KIND DATA              an event whose DATA is stored compressed, as the writer would
//   k T SEQ ROWS COLS ENC DATA a keyframe as stored (without any, they are built from events)
//   q TEXT                     a search
//   d TEXT                     a duration as `replay --from` takes it
#include "FuzzCheck.h"
#include "recording/RecordingCodec.h"
#include "recording/RecordingExport.h"
#include "recording/RecordingIndex.h"
#include "recording/RecordingKeyframes.h"
#include "recording/RecordingReplay.h"
#include "recording/RecordingStore.h"
#include "recording/ScreenModel.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace {

using sbfuzz::check;

std::string unescape(std::string_view in)
{
    std::string out;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i] != '\\' || i + 1 == in.size()) {
            out += in[i];
            continue;
        }
        char c = in[++i];
        switch (c) {
        case 'n':
            out += '\n';
            break;
        case 'r':
            out += '\r';
            break;
        case 't':
            out += '\t';
            break;
        case 'e':
            out += '\x1b';
            break;
        case 'x': {
            unsigned value = 0;
            int digits = 0;
            for (; digits < 2 && i + 1 < in.size(); ++digits) {
                char h = in[i + 1];
                unsigned v = h >= '0' && h <= '9'   ? h - '0'
                             : h >= 'a' && h <= 'f' ? h - 'a' + 10
                             : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                    : 16;
                if (v == 16) break;
                value = value * 16 + v;
                ++i;
            }
            out += static_cast<char>(value);
            break;
        }
        default:
            out += c;
        }
    }
    return out;
}

// Splits off the next space-separated word of `rest`.
std::string_view word(std::string_view& rest)
{
    std::size_t space = rest.find(' ');
    std::string_view w = rest.substr(0, space);
    rest = space == std::string_view::npos ? std::string_view{} : rest.substr(space + 1);
    return w;
}

std::int64_t number(std::string_view text)
{
    std::int64_t value = 0;
    bool negative = !text.empty() && text[0] == '-';
    for (char c : text.substr(negative ? 1 : 0))
        if (c >= '0' && c <= '9')
            value = static_cast<std::int64_t>(static_cast<std::uint64_t>(value) * 10 +
                                              static_cast<std::uint64_t>(c - '0'));
    return negative ? -value : value;
}

struct Event {
    std::int64_t t = 0, kind = 0, encoding = 0;
    std::string data;
};
struct Keyframe {
    std::int64_t t = 0, seq = 0, rows = 0, cols = 0, encoding = 0;
    std::string data;
};
struct Input {
    std::string id = "fuzz-session";
    std::int64_t rows = 24, cols = 80, status = 0;
    std::string state = "ended";
    std::string command = R"(["agent"])", policy = "{}";
    std::vector<Event> events;
    std::vector<Keyframe> keyframes;
    std::vector<std::string> searches, durations;
};

Input parse(std::string_view text)
{
    Input in;
    while (!text.empty()) {
        std::size_t end = text.find('\n');
        std::string_view rest = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        std::string_view tag = word(rest);
        if (tag == "i") {
            in.id = unescape(rest);
        } else if (tag == "s") {
            in.rows = number(word(rest));
            in.cols = number(word(rest));
            in.state = std::string(word(rest));
            in.status = number(word(rest));
        } else if (tag == "c") {
            in.command = unescape(rest);
        } else if (tag == "p") {
            in.policy = unescape(rest);
        } else if (tag == "e" || tag == "z") {
            Event e;
            e.t = number(word(rest));
            e.kind = number(word(rest));
            if (tag == "e") e.encoding = number(word(rest));
            e.data = unescape(rest);
            if (tag == "z") {
                sb::EncodedBlob blob = sb::encodeBlob(e.data);
                e.encoding = static_cast<std::int64_t>(blob.encoding);
                e.data = std::move(blob.bytes);
            }
            in.events.push_back(std::move(e));
        } else if (tag == "k") {
            Keyframe k;
            k.t = number(word(rest));
            k.seq = number(word(rest));
            k.rows = number(word(rest));
            k.cols = number(word(rest));
            k.encoding = number(word(rest));
            k.data = unescape(rest);
            in.keyframes.push_back(std::move(k));
        } else if (tag == "q") {
            in.searches.push_back(unescape(rest));
        } else if (tag == "d") {
            in.durations.emplace_back(rest);
        }
    }
    return in;
}

void ok(const sb::Status&) {} // a refusal is an answer; only a crash or a failed check is not

// Writes the input's session into the (emptied) database as its rows.
std::int64_t store(sb::SqliteDb& db, const Input& in)
{
    check(!db.exec("BEGIN; DELETE FROM sessions; DELETE FROM events; DELETE FROM keyframes; "
                   "INSERT INTO terminal_text(terminal_text) VALUES('delete-all');"),
          "empty the database");
    auto session =
        db.prepare("INSERT INTO sessions (id, command, workspace, policy, started_ns, "
                   "ended_ns, exit_status, state, rows, cols, events, last_t_ns) "
                   "VALUES (?1, ?2, '/project', ?3, 1000, 5000, ?4, ?5, ?6, ?7, ?8, ?9)");
    check(static_cast<bool>(session), "prepare session");
    std::int64_t last = in.events.empty() ? 0 : in.events.back().t;
    session->bindText(1, in.id).bindText(2, in.command).bindText(3, in.policy);
    session->bind(4, in.status).bindText(5, in.state).bind(6, in.rows).bind(7, in.cols);
    session->bind(8, static_cast<std::int64_t>(in.events.size())).bind(9, last);
    if (session->run("session")) { // refused by the schema's checks: nothing to read
        check(!db.exec("COMMIT"), "commit");
        return -1;
    }
    std::int64_t sid = db.lastInsertId();
    auto event = db.prepare(
        "INSERT INTO events (sid, seq, t_ns, type, enc, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    check(static_cast<bool>(event), "prepare event");
    std::int64_t seq = 0;
    for (const Event& e : in.events) {
        event->bind(1, sid).bind(2, seq++).bind(3, e.t).bind(4, e.kind).bind(5, e.encoding);
        event->bindBlob(6, e.data);
        check(!event->run("event"), "insert event");
    }
    if (in.keyframes.empty()) {
        ok(sb::buildKeyframes(db, sid));
    } else {
        auto keyframe = db.prepare("INSERT OR REPLACE INTO keyframes (sid, t_ns, seq, rows, cols, "
                                   "enc, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        check(static_cast<bool>(keyframe), "prepare keyframe");
        for (const Keyframe& k : in.keyframes) {
            keyframe->bind(1, sid).bind(2, k.t).bind(3, k.seq).bind(4, k.rows).bind(5, k.cols);
            keyframe->bind(6, k.encoding).bindBlob(7, k.data);
            check(!keyframe->run("keyframe"), "insert keyframe");
        }
    }
    ok(sb::indexSessionText(db, sid, sb::TextIndexOp::Add));
    check(!db.exec("COMMIT"), "commit");
    return sid;
}

// Each line of an export is one JSON value: an object in JSON Lines; in asciicast the header
// object, then [time, "o", text] arrays.
void checkLines(const std::string& text, sb::ExportFormat format)
{
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        check(end != std::string::npos, "a JSON Lines export ends each line");
        auto line =
            nlohmann::json::parse(text.begin() + static_cast<std::ptrdiff_t>(start),
                                  text.begin() + static_cast<std::ptrdiff_t>(end), nullptr, false);
        check(!line.is_discarded(), "each exported line is JSON");
        check(format == sb::ExportFormat::Asciicast ? line.is_object() == (start == 0)
                                                    : line.is_object(),
              "each exported line is of its kind");
        start = end + 1;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static char folder[] = "/tmp/sandbench-fuzz-recording-XXXXXX";
    static sb::RecordingStore* recordings = [] {
        check(::mkdtemp(folder) != nullptr, "mkdtemp");
        std::atexit([] {
            std::error_code ignored;
            std::filesystem::remove_all(folder, ignored);
        });
        auto opened = sb::RecordingStore::open(std::filesystem::path(folder) / "recordings.db");
        check(static_cast<bool>(opened), "open the recordings database");
        check(!opened->db().exec("PRAGMA synchronous = OFF"), "no waiting for the disk");
        return new sb::RecordingStore(std::move(*opened));
    }();
    static const int devNull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);

    const Input in = parse({reinterpret_cast<const char*>(data), size});
    if (store(recordings->db(), in) < 0) return 0;
    sb::RecordingStore& r = *recordings;
    const std::string& id = in.id;

    (void)r.sessions();
    (void)r.session(id);
    (void)r.summary(id);
    std::int64_t lastNs = 0;
    ok(r.forEachEvent(id, 0, std::numeric_limits<std::int64_t>::max(),
                      [&](const sb::RecordedEvent& e) {
                          lastNs = e.tNs;
                          return true;
                      }));
    ok(r.forEachEvent(id, lastNs / 2, lastNs, [](const sb::RecordedEvent&) { return true; }));
    ok(r.forEachStructuredEvent(id, [](const sb::RecordedEvent&) { return true; }));
    for (const std::string& text : in.searches) {
        (void)r.search(text, id);
        (void)r.search(text);
    }
    for (std::int64_t t : {std::int64_t{0}, lastNs / 2, lastNs}) {
        sb::ScreenModel screen(24, 80);
        ok(r.screenAt(id, t, screen));
    }
    for (sb::ExportFormat format : {sb::ExportFormat::Asciicast, sb::ExportFormat::JsonLines}) {
        std::string out;
        sb::Status exported = sb::exportSession(r, id, format, [&](std::string_view piece) {
            out += piece;
            return sb::Status{};
        });
        if (!exported) checkLines(out, format);
    }
    sb::ReplayOptions replay;
    replay.outFd = devNull;
    replay.sleep = [](std::int64_t) {};
    replay.fromNs = lastNs / 3;
    ok(sb::replaySession(r, id, replay));
    for (const std::string& text : in.durations)
        if (auto ns = sb::parseDuration(text)) (void)sb::formatDuration(*ns);
    ok(r.markInterrupted());
    return 0;
}
