#include "base/VtermGuard.h"

namespace sb {
namespace {

constexpr char kEsc = '\x1b';
constexpr std::size_t kMaxSequence = 4096; // libvterm keeps far less of a sequence than this
constexpr int kMaxSeparators = 16;         // of a control sequence's arguments: 17 of them

} // namespace

void VtermGuard::endSequence(std::string& out, bool keep)
{
    if (keep && !m_dropped) out += m_sequence;
    m_sequence.clear();
    m_dropped = false;
    m_separators = 0;
    m_plainCsi = true;
}

// ESC # 8 (DECALN, the screen filled with "E" to align it) and ESC # 3, 4, 5 or 6 (a line of
// double height or width, or single again; the window draws none of double size), whatever
// libvterm skips inside: after ESC # 8 and a resize to fewer rows, libvterm 0.1.4 writes and
// reads through null pointers (erasing, setting a line's size: found by fuzzing).
bool VtermGuard::alignmentOrLineSize() const
{
    std::string seen;
    for (const char ch : m_sequence)
        if (static_cast<unsigned char>(ch) < 0x7f) seen += ch;
    return seen.size() == 3 && seen.starts_with("\x1b#") &&
           ((seen[2] >= '3' && seen[2] <= '6') || seen[2] == '8');
}

// In an escape or a control sequence, as libvterm does: ESC cancels it and starts another, CAN
// and SUB cancel it. The cancelled sequence does nothing, so it is not passed on: were it, and
// the next one dropped, libvterm would still be in the first one when the bytes after the
// dropped one came ("\e\xff\e … [b" then "[b" found by fuzzing). Other C0 controls in a
// sequence are executed by libvterm as they come and the sequence goes on; they pass at once.
bool VtermGuard::interrupted(char ch, std::string& out)
{
    if (ch == kEsc) {
        endSequence(out, false);
        m_state = State::Escape;
        m_sequence.assign(1, ch);
        return true;
    }
    if (ch == '\x18' || ch == '\x1a') {
        endSequence(out, false);
        m_state = State::Ground;
        out += ch;
        return true;
    }
    return false;
}

void VtermGuard::pass(std::string_view bytes, std::string& out)
{
    out.clear();
    out.reserve(bytes.size() + m_sequence.size());
    for (const char ch : bytes) {
        // A byte above ASCII anywhere may be part of a glyph whose width libvterm decides (where
        // libvterm's view of a sequence's end differs from this one, it may print what is
        // taken here for part of a sequence): REP waits for the next ASCII glyph.
        if (static_cast<unsigned char>(ch) >= 0x80) m_canRepeat = false;
        step(ch, out);
    }
}

void VtermGuard::step(char ch, std::string& out)
{
    const auto c = static_cast<unsigned char>(ch);
    switch (m_state) {
    case State::Ground:
        if (ch == kEsc) {
            m_state = State::Escape;
            m_sequence.assign(1, ch);
            return;
        }
        if (c >= 0x20 && c < 0x7f) m_canRepeat = true;
        out += ch;
        return;
    case State::Escape:
        if (interrupted(ch, out)) return;
        if (c < 0x20) { // executed, and the sequence goes on ("\e\x10[b" is still REP)
            out += ch;
            return;
        }
        m_sequence += ch;
        if (ch == '[') {
            m_state = State::Csi;
            m_csiStart = m_sequence.size();
        } else if (ch == 'P') {
            // A device control string. libvterm 0.1.4 acts on one only to answer DECRQSS ("$q…",
            // what is this setting?), through a format that reads through a null pointer for
            // most settings asked about, and takes each piece of a string that comes in writes
            // of its own for a whole one (found by fuzzing: "\eP$q r\e\\", and "\ePxy" then
            // "$q r"). So none is passed on, and the program gets no answer.
            m_state = State::DroppedString;
            endSequence(out, false);
        } else if (ch == ']' || ch == 'X' || ch == '^' || ch == '_') {
            m_state = State::String; // OSC, SOS, PM, APC: text that is not printed
            endSequence(out, true);
        } else if (c >= 0x20 && c <= 0x2f) {
            // an intermediate byte (ESC ( B …): the final byte follows
        } else if (c >= 0x7f) {
            // libvterm skips it (DEL, or a byte above ASCII) and the sequence goes on:
            // "\e\xff[b" and "\e\x7f[b" are still REP (both found by fuzz_recording)
        } else {
            m_state = State::Ground;
            endSequence(out, !alignmentOrLineSize());
        }
        return;
    case State::Csi:
        if (interrupted(ch, out)) return;
        if (c < 0x20) {
            out += ch;
            return;
        }
        if (m_sequence.size() < kMaxSequence)
            m_sequence += ch;
        else
            m_dropped = true;
        // libvterm 0.1.4 keeps 16 arguments and writes past them when there are more: "\e[" and
        // 16 ";" crashes it (found by fuzzing). Such a sequence means nothing to it anyway.
        if ((ch == ';' || ch == ':') && ++m_separators >= kMaxSeparators) m_dropped = true;
        if (c >= 0x40 && c <= 0x7e) { // the final byte
            const bool repeatsNothing = ch == 'b' && m_plainCsi && !m_canRepeat;
            m_state = State::Ground;
            endSequence(out, !repeatsNothing);
        } else if ((c >= 0x3c && c <= 0x3f && m_sequence.size() == m_csiStart + 1) ||
                   (c >= 0x20 && c <= 0x2f)) {
            m_plainCsi = false; // "\e[?…" or an intermediate: not REP
        }
        return;
    case State::String:
    case State::DroppedString:
        if (ch == '\x07' || ch == '\x18' || ch == '\x1a') {
            if (m_state == State::String) out += ch;
            m_state = State::Ground;
        } else if (ch == kEsc) { // ST (ESC \) or a new sequence: either ends the string
            m_stringDropped = m_state == State::DroppedString;
            m_state = State::StringEscape;
        } else if (m_state == State::String) {
            out += ch;
        }
        return;
    case State::StringEscape:
        // The string ends here for libvterm whatever follows, so it is ended with ST at once:
        // were the escape that ends it dropped, libvterm would go on in the string while
        // the guard had left it (found by fuzzing: "\eP x" and a dropped "\e[3b", then " x",
        // then a REP libvterm took for one of nothing).
        if (!m_stringDropped) out += "\x1b\\";
        m_stringDropped = false;
        m_state = State::Ground;
        if (ch == '\\') return;
        m_state = State::Escape;
        m_sequence.assign(1, kEsc);
        step(ch, out);
        return;
    }
}

} // namespace sb
