#include "network/SseReader.h"

namespace sb {
namespace {

constexpr char kBom[] = "\xEF\xBB\xBF";
constexpr std::size_t kMaxFieldName = 8; // longer than any field read here: never matches one

} // namespace

void SseReader::feed(std::string_view bytes, Sink& sink)
{
    std::size_t i = 0;
    while (i < bytes.size()) {
        const char c = bytes[i];
        if (!m_started) {
            if (c == kBom[m_bomSeen]) {
                ++i;
                if (++m_bomSeen == 3) m_started = true;
                continue;
            }
            m_started = true;
            for (std::size_t k = 0; k < m_bomSeen; ++k) // a prefix of one that was not one
                byte(kBom[k], sink);
        }
        // Within a data line's value, the run up to the line's end goes out as one piece.
        if (m_field == Field::Data && m_valueStarted) {
            const std::size_t end = bytes.find_first_of("\r\n", i);
            const std::size_t stop = end == std::string_view::npos ? bytes.size() : end;
            if (stop > i) {
                sink.data(bytes.substr(i, stop - i));
                m_lineEmpty = false;
                m_afterCr = false;
                i = stop;
                continue;
            }
        }
        byte(c, sink);
        ++i;
    }
}

void SseReader::byte(char c, Sink& sink)
{
    if (c == '\n' && m_afterCr) {
        m_afterCr = false;
        return;
    }
    m_afterCr = c == '\r';
    if (c == '\r' || c == '\n') {
        endLine(sink);
        return;
    }
    m_lineEmpty = false;
    switch (m_field) {
    case Field::Name:
        if (c != ':') {
            if (m_name.size() < kMaxFieldName) m_name += c;
            return;
        }
        m_valueStarted = false;
        if (m_name == "data") {
            m_field = Field::Data;
            if (m_haveData) sink.data("\n");
            m_haveData = true;
        } else if (m_name == "event") {
            m_field = Field::Event;
            m_eventName.clear();
        } else { // a comment (no name), "id", "retry" or a field this reader has no use for
            m_field = Field::Ignored;
        }
        return;
    case Field::Data:
        if (!m_valueStarted) {
            m_valueStarted = true;
            if (c == ' ') return;
        }
        sink.data(std::string_view(&c, 1));
        return;
    case Field::Event:
        if (!m_valueStarted) {
            m_valueStarted = true;
            if (c == ' ') return;
        }
        if (m_eventName.size() < kMaxEventName) m_eventName += c;
        return;
    case Field::Ignored:
        return;
    }
}

void SseReader::endLine(Sink& sink)
{
    if (m_lineEmpty) {
        if (m_haveData) sink.dispatch(m_eventName);
        m_haveData = false;
        m_eventName.clear();
    } else if (m_field == Field::Name) { // a field without a colon: its value is empty
        if (m_name == "data") {
            if (m_haveData) sink.data("\n");
            m_haveData = true;
        } else if (m_name == "event") {
            m_eventName.clear();
        }
    }
    m_field = Field::Name;
    m_name.clear();
    m_lineEmpty = true;
    m_valueStarted = false;
}

} // namespace sb
