// What a key press means to the terminal, decided from the key alone (a pure function, tested
// as a table). Keys whose bytes depend on terminal modes (cursor keys in application mode,
// the application keypad, function keys with modifiers) come out as a libvterm key for
// TerminalScreen::keyBytes(), which asks libvterm's keyboard layer; text and control
// characters come out as bytes, because libvterm 0.1.4 sends CSI-u sequences for Ctrl+[,
// Ctrl+I/J/M and Ctrl+@ where classic terminals (and the programs agents run) expect C0 bytes.
#pragma once

#include <QByteArray>
#include <QString>
#include <Qt>
#include <cstdint>
#include <vterm_keycodes.h>

class QKeyEvent;

namespace sbui {

struct TerminalKey {
    enum class Kind {
        None,     // not for the terminal (a lone modifier, an application shortcut, …)
        VTermKey, // `key` with `mod`, encoded by libvterm under the current modes
        Bytes,    // `bytes` as they are
    };
    Kind kind = Kind::None;
    VTermKey key = VTERM_KEY_NONE;
    VTermModifier mod = VTERM_MOD_NONE;
    QByteArray bytes;

    bool isNone() const { return kind == Kind::None; }
};

// Ctrl+Shift+<letter> belongs to the application (copy, paste, find, approval answers): it is
// never sent to the program in the terminal.
bool isApplicationShortcut(int key, Qt::KeyboardModifiers mods);

// Qt's Shift, Alt and Control as libvterm's modifier bits (keys and mouse events alike).
VTermModifier vtermModifiers(Qt::KeyboardModifiers mods);

// `key` is a Qt::Key, `text` what the keyboard layout produced (QKeyEvent::text()).
TerminalKey translateKey(int key, Qt::KeyboardModifiers mods, const QString& text);
TerminalKey translateKey(const QKeyEvent& event);

} // namespace sbui
