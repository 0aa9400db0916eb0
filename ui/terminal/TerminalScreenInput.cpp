// TerminalScreen's input encodings: what the terminal sends the program for keys, pastes, the
// mouse and focus changes, as libvterm encodes them for the modes the program set.
#include "KeyTranslator.h"
#include "TerminalScreen.h"

#include <algorithm>
#include <vterm.h>

namespace sbui {

QByteArray TerminalScreen::takeCaptured()
{
    QByteArray out;
    out.swap(m_captured);
    return out;
}

QByteArray TerminalScreen::keyBytes(const TerminalKey& key)
{
    switch (key.kind) {
    case TerminalKey::Kind::None:
        return {};
    case TerminalKey::Kind::Bytes:
        return key.bytes;
    case TerminalKey::Kind::VTermKey:
        m_captured.clear();
        vterm_keyboard_key(m_vt, key.key, key.mod);
        return takeCaptured();
    }
    return {};
}

QByteArray TerminalScreen::pasteBytes(const QString& text)
{
    QString clean;
    clean.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c == u'\r' && i + 1 < text.size() && text.at(i + 1) == u'\n') continue;
        if (c == u'\n' || c == u'\r')
            clean += u'\r';
        else if (c == u'\t' || (c.unicode() >= 0x20 && c.unicode() != 0x7f &&
                                !(c.unicode() >= 0x80 && c.unicode() < 0xa0)))
            clean += c;
    }
    if (clean.isEmpty()) return {};
    m_captured.clear();
    vterm_keyboard_start_paste(m_vt);
    QByteArray out = takeCaptured();
    out += clean.toUtf8();
    vterm_keyboard_end_paste(m_vt);
    out += takeCaptured();
    return out;
}

QByteArray TerminalScreen::mouseMoveBytes(int row, int col, Qt::KeyboardModifiers mods)
{
    // libvterm 0.1.4 reports the mouse even when no program asked for it.
    if (m_mouseMode == MouseMode::None) return {};
    m_captured.clear();
    vterm_mouse_move(m_vt, std::clamp(row, 0, m_rows - 1), std::clamp(col, 0, m_cols - 1),
                     vtermModifiers(mods));
    return takeCaptured();
}

QByteArray TerminalScreen::mouseButtonBytes(int button, bool pressed, Qt::KeyboardModifiers mods)
{
    if (m_mouseMode == MouseMode::None) return {};
    m_captured.clear();
    vterm_mouse_button(m_vt, button, pressed, vtermModifiers(mods));
    return takeCaptured();
}

QByteArray TerminalScreen::focusBytes(bool focused)
{
    m_captured.clear();
    if (focused)
        vterm_state_focus_in(vterm_obtain_state(m_vt));
    else
        vterm_state_focus_out(vterm_obtain_state(m_vt));
    return takeCaptured();
}

} // namespace sbui
