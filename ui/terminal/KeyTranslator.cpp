#include "KeyTranslator.h"

#include <QKeyEvent>
#include <optional>

namespace sbui {
namespace {

constexpr char kEsc = '\x1b';

TerminalKey vtermKey(VTermKey key, VTermModifier mod)
{
    TerminalKey k;
    k.kind = TerminalKey::Kind::VTermKey;
    k.key = key;
    k.mod = mod;
    return k;
}

TerminalKey bytes(QByteArray b, bool altPrefix)
{
    TerminalKey k;
    k.kind = TerminalKey::Kind::Bytes;
    k.bytes = altPrefix ? kEsc + b : std::move(b);
    return k;
}

// Keys on the numeric keypad while NumLock is on (NumLock off gives the navigation keys, which
// namedKey() covers). Keypad Enter is left to the Enter rule: libvterm 0.1.4 sends LF for it
// outside application-keypad mode, where every terminal sends CR.
VTermKey keypadKey(int key)
{
    if (key >= Qt::Key_0 && key <= Qt::Key_9)
        return static_cast<VTermKey>(VTERM_KEY_KP_0 + (key - Qt::Key_0));
    switch (key) {
    case Qt::Key_Asterisk:
        return VTERM_KEY_KP_MULT;
    case Qt::Key_Plus:
        return VTERM_KEY_KP_PLUS;
    case Qt::Key_Comma:
        return VTERM_KEY_KP_COMMA;
    case Qt::Key_Minus:
        return VTERM_KEY_KP_MINUS;
    case Qt::Key_Period:
        return VTERM_KEY_KP_PERIOD;
    case Qt::Key_Slash:
        return VTERM_KEY_KP_DIVIDE;
    case Qt::Key_Equal:
        return VTERM_KEY_KP_EQUAL;
    default:
        return VTERM_KEY_NONE;
    }
}

// Keys whose encoding libvterm knows, including how modes and modifiers change it.
VTermKey namedKey(int key)
{
    if (key >= Qt::Key_F1 && key <= Qt::Key_F12)
        return static_cast<VTermKey>(VTERM_KEY_FUNCTION(key - Qt::Key_F1 + 1));
    switch (key) {
    case Qt::Key_Up:
        return VTERM_KEY_UP;
    case Qt::Key_Down:
        return VTERM_KEY_DOWN;
    case Qt::Key_Left:
        return VTERM_KEY_LEFT;
    case Qt::Key_Right:
        return VTERM_KEY_RIGHT;
    case Qt::Key_Home:
        return VTERM_KEY_HOME;
    case Qt::Key_End:
        return VTERM_KEY_END;
    case Qt::Key_PageUp:
        return VTERM_KEY_PAGEUP;
    case Qt::Key_PageDown:
        return VTERM_KEY_PAGEDOWN;
    case Qt::Key_Insert:
        return VTERM_KEY_INS;
    case Qt::Key_Delete:
        return VTERM_KEY_DEL;
    case Qt::Key_Escape:
        return VTERM_KEY_ESCAPE;
    case Qt::Key_Tab:
    case Qt::Key_Backtab:
        return VTERM_KEY_TAB;
    default:
        return VTERM_KEY_NONE;
    }
}

// The C0 byte for Ctrl+key, as xterm sends it (the digit row included: Ctrl+2 … Ctrl+8).
std::optional<char> controlByte(int key)
{
    if (key >= Qt::Key_A && key <= Qt::Key_Z) return static_cast<char>(key - Qt::Key_A + 1);
    switch (key) {
    case Qt::Key_At:
    case Qt::Key_Space:
    case Qt::Key_2:
    case Qt::Key_QuoteLeft:
        return '\x00';
    case Qt::Key_BracketLeft:
    case Qt::Key_3:
        return '\x1b';
    case Qt::Key_Backslash:
    case Qt::Key_4:
        return '\x1c';
    case Qt::Key_BracketRight:
    case Qt::Key_5:
        return '\x1d';
    case Qt::Key_AsciiCircum:
    case Qt::Key_AsciiTilde:
    case Qt::Key_6:
        return '\x1e';
    case Qt::Key_Underscore:
    case Qt::Key_Minus:
    case Qt::Key_Slash:
    case Qt::Key_7:
        return '\x1f';
    case Qt::Key_Question:
    case Qt::Key_8:
        return '\x7f';
    default:
        return std::nullopt;
    }
}

bool isPrintable(const QString& text)
{
    if (text.isEmpty()) return false;
    for (QChar c : text)
        if (c.unicode() < 0x20 || c.unicode() == 0x7f) return false;
    return true;
}

} // namespace

VTermModifier vtermModifiers(Qt::KeyboardModifiers mods)
{
    int mod = VTERM_MOD_NONE;
    if (mods & Qt::ShiftModifier) mod |= VTERM_MOD_SHIFT;
    if (mods & Qt::AltModifier) mod |= VTERM_MOD_ALT;
    if (mods & Qt::ControlModifier) mod |= VTERM_MOD_CTRL;
    return static_cast<VTermModifier>(mod);
}

bool isApplicationShortcut(int key, Qt::KeyboardModifiers mods)
{
    return (mods & Qt::ControlModifier) && (mods & Qt::ShiftModifier) && key >= Qt::Key_A &&
           key <= Qt::Key_Z;
}

TerminalKey translateKey(int key, Qt::KeyboardModifiers mods, const QString& text)
{
    if (isApplicationShortcut(key, mods)) return {};
    // Super/Meta combinations belong to the desktop.
    if (mods & Qt::MetaModifier) return {};
    const bool ctrl = mods & Qt::ControlModifier;
    const bool alt = mods & Qt::AltModifier;
    const VTermModifier mod = vtermModifiers(mods);

    if (mods & Qt::KeypadModifier) {
        if (VTermKey k = keypadKey(key); k != VTERM_KEY_NONE) return vtermKey(k, mod);
    }
    // CR (CR LF in newline mode); Shift and Ctrl dropped, as in xterm: libvterm would send CSI-u
    // for them, which most programs print as garbage.
    if (key == Qt::Key_Return || key == Qt::Key_Enter)
        return vtermKey(VTERM_KEY_ENTER, alt ? VTERM_MOD_ALT : VTERM_MOD_NONE);
    // DEL, as every Linux terminal sends it; Ctrl+Backspace is BS (erase a word in many
    // programs). libvterm would send CSI-u for the modified forms, which shells don't read.
    if (key == Qt::Key_Backspace) return bytes(ctrl ? "\x08" : "\x7f", alt);
    if (VTermKey k = namedKey(key); k != VTERM_KEY_NONE) {
        // Some platforms report Shift+Tab as Backtab without the Shift modifier.
        if (key == Qt::Key_Backtab)
            return vtermKey(k, static_cast<VTermModifier>(mod | VTERM_MOD_SHIFT));
        return vtermKey(k, mod);
    }
    if (ctrl) {
        if (auto c = controlByte(key)) return bytes(QByteArray(1, *c), alt);
        // A layout whose keys Qt could not name: the text already is the control character.
        if (text.size() == 1 && text.at(0).unicode() < 0x20)
            return bytes(QByteArray(1, static_cast<char>(text.at(0).unicode())), alt);
    }
    if (isPrintable(text)) return bytes(text.toUtf8(), alt);
    return {};
}

TerminalKey translateKey(const QKeyEvent& event)
{
    return translateKey(event.key(), event.modifiers(), event.text());
}

} // namespace sbui
