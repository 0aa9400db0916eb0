#include "base/VtermGuard.h"

namespace sb {
namespace {

constexpr char kEsc = '\x1b';
constexpr std::size_t kMaxSequence = 4096; // libvterm keeps far less of a sequence than this

} // namespace

void VtermGuard::endSequence(std::string& out, bool keep)
{
    if (keep && !m_overlong) out += m_sequence;
    m_sequence.clear();
    m_overlong = false;
    m_plainCsi = true;
}

// In an escape or a control sequence, as libvterm does: ESC cancels it and starts another, CAN
// and SUB cancel it.
bool VtermGuard::interrupted(char ch, std::string& out)
{
    if (ch == kEsc) {
        endSequence(out, true);
        m_state = State::Escape;
        m_sequence.assign(1, ch);
        return true;
    }
    if (ch == '\x18' || ch == '\x1a') {
        endSequence(out, true);
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
        const auto c = static_cast<unsigned char>(ch);
        switch (m_state) {
        case State::Ground:
            if (ch == kEsc) {
                m_state = State::Escape;
                m_sequence.assign(1, ch);
                continue;
            }
            if (c >= 0x20 && c < 0x7f)
                m_canRepeat = true;
            else if (c >= 0x80)
                m_canRepeat = false; // a glyph whose width libvterm decides
            out += ch;
            continue;
        case State::Escape:
            if (interrupted(ch, out)) continue;
            m_sequence += ch;
            if (c < 0x20) {
                // A C0 control inside the sequence: libvterm executes it and the sequence goes
                // on ("\e\x10[b" is still REP).
            } else if (ch == '[') {
                m_state = State::Csi;
            } else if (ch == ']' || ch == 'P' || ch == 'X' || ch == '^' || ch == '_') {
                m_state = State::String; // OSC, DCS, SOS, PM, APC: text that is not printed
                endSequence(out, true);
            } else if (c >= 0x20 && c <= 0x2f) {
                // an intermediate byte (ESC ( B …): the final byte follows
            } else if (c >= 0x7f) {
                // libvterm skips it (DEL, or a byte above ASCII) and the sequence goes on:
                // "\e\xff[b" and "\e\x7f[b" are still REP (both found by fuzz_recording)
            } else {
                m_state = State::Ground;
                endSequence(out, true);
            }
            continue;
        case State::Csi:
            if (interrupted(ch, out)) continue;
            if (m_sequence.size() < kMaxSequence)
                m_sequence += ch;
            else
                m_overlong = true;
            if (c >= 0x40 && c <= 0x7e) { // the final byte
                const bool repeatsNothing = ch == 'b' && m_plainCsi && !m_canRepeat;
                m_state = State::Ground;
                endSequence(out, !repeatsNothing);
            } else if ((c >= 0x3c && c <= 0x3f && m_sequence.size() == 3) ||
                       (c >= 0x20 && c <= 0x2f)) {
                m_plainCsi = false; // "\e[?…" or an intermediate: not REP
            }
            continue;
        case State::String:
            if (ch == '\x07' || ch == '\x18' || ch == '\x1a') {
                m_state = State::Ground;
                out += ch;
            } else if (ch == kEsc) { // ST (ESC \) or a new sequence: either ends the string
                m_state = State::Escape;
                m_sequence.assign(1, ch);
            } else {
                out += ch;
            }
            continue;
        }
    }
}

} // namespace sb
