// KeyTranslator (ui/terminal): a key press to the bytes the program receives, as a table, in
// normal and application cursor-key mode, with Alt, Ctrl, function keys and the keypad; and
// which keys are the application's (never sent).
#include "terminal/KeyTranslator.h"

#include "terminal/TerminalScreen.h"

#include <QTest>

using sbui::isApplicationShortcut;
using sbui::TerminalScreen;
using sbui::translateKey;

Q_DECLARE_METATYPE(Qt::KeyboardModifiers)

namespace {

constexpr auto None = Qt::NoModifier;
constexpr auto Shift = Qt::ShiftModifier;
constexpr auto Ctrl = Qt::ControlModifier;
constexpr auto Alt = Qt::AltModifier;
constexpr auto Keypad = Qt::KeypadModifier;

QByteArray bytesFor(TerminalScreen& screen, int key, Qt::KeyboardModifiers mods,
                    const QString& text)
{
    return screen.keyBytes(translateKey(key, mods, text));
}

void enterMode(TerminalScreen& screen, const QByteArray& sequence)
{
    screen.write(sequence.constData(), static_cast<std::size_t>(sequence.size()));
}

} // namespace

class KeyTranslatorTest : public QObject {
    Q_OBJECT

  private:
    void addRow(const char* name, int key, Qt::KeyboardModifiers mods, const QString& text,
                const QByteArray& normal, const QByteArray& application)
    {
        QTest::newRow(name) << key << mods << text << normal << application;
    }

  private Q_SLOTS:
    void keys_data()
    {
        QTest::addColumn<int>("key");
        QTest::addColumn<Qt::KeyboardModifiers>("mods");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QByteArray>("normal");      // cursor keys and keypad in normal mode
        QTest::addColumn<QByteArray>("application"); // after DECCKM and DECKPAM
        const QString none;
        // Text
        addRow("letter", Qt::Key_A, None, "a", "a", "a");
        addRow("shifted letter", Qt::Key_A, Shift, "A", "A", "A");
        addRow("utf-8", Qt::Key_Eacute, None, QString::fromUtf8("\xc3\xa9"), "\xc3\xa9",
               "\xc3\xa9");
        addRow("space", Qt::Key_Space, None, " ", " ", " ");
        // Editing keys
        addRow("enter", Qt::Key_Return, None, "\r", "\r", "\r");
        addRow("keypad enter", Qt::Key_Enter, Keypad, "\r", "\r", "\r");
        addRow("backspace is DEL", Qt::Key_Backspace, None, "\x08", "\x7f", "\x7f");
        addRow("ctrl+backspace is BS", Qt::Key_Backspace, Ctrl, none, "\x08", "\x08");
        addRow("alt+backspace", Qt::Key_Backspace, Alt, none, "\x1b\x7f", "\x1b\x7f");
        addRow("tab", Qt::Key_Tab, None, "\t", "\t", "\t");
        addRow("shift+tab", Qt::Key_Backtab, Shift, none, "\x1b[Z", "\x1b[Z");
        addRow("escape", Qt::Key_Escape, None, "\x1b", "\x1b", "\x1b");
        // Cursor keys: CSI in normal mode, SS3 in application mode; CSI with modifiers always.
        addRow("up", Qt::Key_Up, None, none, "\x1b[A", "\x1bOA");
        addRow("down", Qt::Key_Down, None, none, "\x1b[B", "\x1bOB");
        addRow("right", Qt::Key_Right, None, none, "\x1b[C", "\x1bOC");
        addRow("left", Qt::Key_Left, None, none, "\x1b[D", "\x1bOD");
        addRow("ctrl+right", Qt::Key_Right, Ctrl, none, "\x1b[1;5C", "\x1b[1;5C");
        addRow("shift+up", Qt::Key_Up, Shift, none, "\x1b[1;2A", "\x1b[1;2A");
        addRow("alt+left", Qt::Key_Left, Alt, none, "\x1b[1;3D", "\x1b[1;3D");
        addRow("home", Qt::Key_Home, None, none, "\x1b[H", "\x1bOH");
        addRow("end", Qt::Key_End, None, none, "\x1b[F", "\x1bOF");
        addRow("insert", Qt::Key_Insert, None, none, "\x1b[2~", "\x1b[2~");
        addRow("delete", Qt::Key_Delete, None, none, "\x1b[3~", "\x1b[3~");
        addRow("page up", Qt::Key_PageUp, None, none, "\x1b[5~", "\x1b[5~");
        addRow("page down", Qt::Key_PageDown, None, none, "\x1b[6~", "\x1b[6~");
        addRow("ctrl+delete", Qt::Key_Delete, Ctrl, none, "\x1b[3;5~", "\x1b[3;5~");
        // Function keys
        addRow("F1", Qt::Key_F1, None, none, "\x1bOP", "\x1bOP");
        addRow("F4", Qt::Key_F4, None, none, "\x1bOS", "\x1bOS");
        addRow("F5", Qt::Key_F5, None, none, "\x1b[15~", "\x1b[15~");
        addRow("F10", Qt::Key_F10, None, none, "\x1b[21~", "\x1b[21~");
        addRow("F12", Qt::Key_F12, None, none, "\x1b[24~", "\x1b[24~");
        addRow("shift+F1", Qt::Key_F1, Shift, none, "\x1b[1;2P", "\x1b[1;2P");
        addRow("ctrl+F5", Qt::Key_F5, Ctrl, none, "\x1b[15;5~", "\x1b[15;5~");
        // Alt sends ESC first
        addRow("alt+x", Qt::Key_X, Alt, "x", "\x1bx", "\x1bx");
        addRow("alt+shift+x", Qt::Key_X, Alt | Shift, "X", "\x1bX", "\x1bX");
        addRow("alt+utf-8", Qt::Key_Eacute, Alt, QString::fromUtf8("\xc3\xa9"), "\x1b\xc3\xa9",
               "\x1b\xc3\xa9");
        addRow("alt+enter", Qt::Key_Return, Alt, "\r", "\x1b\r", "\x1b\r");
        // Ctrl: C0 controls
        addRow("ctrl+a", Qt::Key_A, Ctrl, "\x01", "\x01", "\x01");
        addRow("ctrl+c", Qt::Key_C, Ctrl, none, "\x03", "\x03");
        addRow("ctrl+i", Qt::Key_I, Ctrl, none, "\t", "\t");
        addRow("ctrl+j", Qt::Key_J, Ctrl, none, "\n", "\n");
        addRow("ctrl+m", Qt::Key_M, Ctrl, none, "\r", "\r");
        addRow("ctrl+z", Qt::Key_Z, Ctrl, "\x1a", "\x1a", "\x1a");
        addRow("ctrl+[", Qt::Key_BracketLeft, Ctrl, none, "\x1b", "\x1b");
        addRow("ctrl+\\", Qt::Key_Backslash, Ctrl, none, "\x1c", "\x1c");
        addRow("ctrl+]", Qt::Key_BracketRight, Ctrl, none, "\x1d", "\x1d");
        addRow("ctrl+^", Qt::Key_AsciiCircum, Ctrl | Shift, none, "\x1e", "\x1e");
        addRow("ctrl+_", Qt::Key_Underscore, Ctrl | Shift, none, "\x1f", "\x1f");
        addRow("ctrl+@", Qt::Key_At, Ctrl | Shift, none, QByteArray(1, '\0'), QByteArray(1, '\0'));
        addRow("ctrl+space", Qt::Key_Space, Ctrl, none, QByteArray(1, '\0'), QByteArray(1, '\0'));
        addRow("ctrl+alt+a", Qt::Key_A, Ctrl | Alt, "\x01", "\x1b\x01", "\x1b\x01");
        addRow("ctrl+2 is NUL", Qt::Key_2, Ctrl, "2", QByteArray(1, '\0'), QByteArray(1, '\0'));
        addRow("ctrl+6 is RS", Qt::Key_6, Ctrl, "6", "\x1e", "\x1e");
        // A layout key Qt has no name for: the control character in the text is sent.
        addRow("ctrl+cyrillic es", 0x0421, Ctrl, "\x03", "\x03", "\x03");
        addRow("ctrl+? is DEL", Qt::Key_Question, Ctrl | Shift, none, "\x7f", "\x7f");
        // Keypad: digits in normal mode, SS3 codes in application keypad mode.
        addRow("keypad 5", Qt::Key_5, Keypad, "5", "5", "\x1bOu");
        addRow("keypad 0", Qt::Key_0, Keypad, "0", "0", "\x1bOp");
        addRow("keypad +", Qt::Key_Plus, Keypad, "+", "+", "\x1bOk");
        addRow("keypad /", Qt::Key_Slash, Keypad, "/", "/", "\x1bOo");
        addRow("keypad up (NumLock off)", Qt::Key_Up, Keypad, none, "\x1b[A", "\x1bOA");
    }

    void keys()
    {
        QFETCH(int, key);
        QFETCH(Qt::KeyboardModifiers, mods);
        QFETCH(QString, text);
        QFETCH(QByteArray, normal);
        QFETCH(QByteArray, application);

        TerminalScreen screen(24, 80);
        QCOMPARE(bytesFor(screen, key, mods, text), normal);
        enterMode(screen, "\x1b[?1h\x1b="); // DECCKM, DECKPAM
        QCOMPARE(bytesFor(screen, key, mods, text), application);
        enterMode(screen, "\x1b[?1l\x1b>");
        QCOMPARE(bytesFor(screen, key, mods, text), normal);
    }

    void applicationShortcutsAreNeverSent_data()
    {
        QTest::addColumn<int>("key");
        QTest::addColumn<Qt::KeyboardModifiers>("mods");
        QTest::newRow("ctrl+shift+c") << int(Qt::Key_C) << Qt::KeyboardModifiers(Ctrl | Shift);
        QTest::newRow("ctrl+shift+v") << int(Qt::Key_V) << Qt::KeyboardModifiers(Ctrl | Shift);
        QTest::newRow("ctrl+shift+y") << int(Qt::Key_Y) << Qt::KeyboardModifiers(Ctrl | Shift);
        QTest::newRow("ctrl+shift+n") << int(Qt::Key_N) << Qt::KeyboardModifiers(Ctrl | Shift);
        QTest::newRow("ctrl+alt+shift+y")
            << int(Qt::Key_Y) << Qt::KeyboardModifiers(Ctrl | Alt | Shift);
    }

    void applicationShortcutsAreNeverSent()
    {
        QFETCH(int, key);
        QFETCH(Qt::KeyboardModifiers, mods);
        QVERIFY(isApplicationShortcut(key, mods));
        // The text Qt reports for these is a control character; it must not leak through.
        QVERIFY(translateKey(key, mods, QString(QChar(key - Qt::Key_A + 1))).isNone());
    }

    void controlLettersAreNotApplicationShortcuts()
    {
        QVERIFY(!isApplicationShortcut(Qt::Key_C, Ctrl));
        QVERIFY(!isApplicationShortcut(Qt::Key_C, Shift));
        QVERIFY(!isApplicationShortcut(Qt::Key_At, Ctrl | Shift));
    }

    void lonelyModifiersAndUnknownKeysSendNothing()
    {
        QVERIFY(translateKey(Qt::Key_Shift, Shift, QString()).isNone());
        QVERIFY(translateKey(Qt::Key_Control, Ctrl, QString()).isNone());
        QVERIFY(translateKey(Qt::Key_CapsLock, None, QString()).isNone());
        QVERIFY(translateKey(Qt::Key_A, Qt::MetaModifier, "a").isNone());
    }

    void newlineModeSendsCrLf()
    {
        TerminalScreen screen(24, 80);
        enterMode(screen, "\x1b[20h"); // LNM
        QCOMPARE(bytesFor(screen, Qt::Key_Return, None, "\r"), QByteArray("\r\n"));
        QCOMPARE(bytesFor(screen, Qt::Key_Return, Shift, "\r"), QByteArray("\r\n"));
        enterMode(screen, "\x1b[20l");
        QCOMPARE(bytesFor(screen, Qt::Key_Return, Shift, "\r"), QByteArray("\r"));
    }
};

QTEST_MAIN(KeyTranslatorTest)
#include "KeyTranslatorTest.moc"
