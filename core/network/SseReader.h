// Server-sent events (the HTML standard's "text/event-stream" interpretation), read from bytes
// fed in pieces: lines end in CRLF, LF or CR; a line starting with ':' is a comment; "data"
// lines of one event are joined with LF; "event" names it; a blank line dispatches it (an event
// without data is none); a leading byte order mark is skipped; what follows the last blank line
// when the stream ends is no event. The event's data goes to the sink as it arrives rather than
// being held here, so the reader's memory stays a few bytes however long a line is; the sink
// decides what to keep.
#pragma once

#include <string>
#include <string_view>

namespace sb {

class SseReader {
  public:
    static constexpr std::size_t kMaxEventName = 128; // longer names are cut

    struct Sink {
        // A piece of the current event's data (the LF joining data lines included).
        virtual void data(std::string_view piece) = 0;
        // The event is complete; eventName is empty when no "event" line named it.
        virtual void dispatch(std::string_view eventName) = 0;

      protected:
        ~Sink() = default;
    };

    void feed(std::string_view bytes, Sink& sink);

  private:
    enum class Field { Name, Data, Event, Ignored };
    void endLine(Sink& sink);
    void byte(char c, Sink& sink);

    std::size_t m_bomSeen = 0; // bytes of a leading byte order mark matched so far
    bool m_started = false;    // past the byte order mark
    bool m_afterCr = false;    // an LF right after a CR ends no second line
    Field m_field = Field::Name;
    std::string m_name; // the line's field name so far (at most a few bytes)
    bool m_lineEmpty = true;
    bool m_valueStarted = false; // the value's first byte (a space to skip) is behind
    bool m_haveData = false;
    std::string m_eventName;
};

} // namespace sb
