// TerminalScreen (ui/terminal): known byte streams give known cells, attributes, colours and
// cursor; wide characters, combining marks, the alternate screen, scrollback across resizes
// (reflow in detail: TerminalReflowTest), search, title, bell, replies, and the encodings sent
// back (paste, focus, mouse).
#include "terminal/TerminalScreen.h"

#include <QTest>

using sbui::TerminalCell;
using sbui::TerminalColor;
using sbui::TerminalCursor;
using sbui::TerminalPos;
using sbui::TerminalScreen;

namespace {

void feed(TerminalScreen& screen, const QByteArray& bytes)
{
    screen.write(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

// Pushes `count` numbered lines ("line 0" …) through a screen.
void feedNumberedLines(TerminalScreen& screen, int count, const char* prefix = "line ")
{
    QByteArray out;
    for (int i = 0; i < count; ++i)
        out += prefix + QByteArray::number(i) + "\r\n";
    feed(screen, out);
}

} // namespace

class TerminalScreenTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void textAndCursor()
    {
        TerminalScreen screen(5, 20);
        feed(screen, "hello\r\nworld  \x1b[3;5Hx");
        QCOMPARE(screen.lineText(0), QStringLiteral("hello"));
        QCOMPARE(screen.lineText(1), QStringLiteral("world"));
        QCOMPARE(screen.lineText(2), QStringLiteral("    x"));
        const TerminalCursor cursor = screen.cursor();
        QCOMPARE(cursor.row, 2);
        QCOMPARE(cursor.col, 5);
        QVERIFY(cursor.visible);
        feed(screen, "\x1b[?25l");
        QVERIFY(!screen.cursor().visible);
    }

    // "\e[b" (repeat the last character) before any character hung libvterm 0.1.4 for ever,
    // and with it the window: the guard drops a repeat of nothing, keeps the others.
    void aRepeatOfNothingDoesNotHang()
    {
        TerminalScreen screen(5, 20);
        feed(screen, "\x1b[b\x1b[0b");
        feed(screen, "\x1b[");
        feed(screen, "bx\x1b[2b");
        QCOMPARE(screen.lineText(0), QStringLiteral("xxx"));
    }

    // What a libvterm fuzzer found crashing libvterm 0.1.4 (the guard's unit tests have each
    // shape): the window's screen, resized between, goes on.
    void whatCrashedLibvtermDoesNotCrashTheWindow()
    {
        TerminalScreen screen(24, 80);
        feed(screen, "\x1b#8\x1b[3r\x1b[" + QByteArray(16, ';') + "m");
        screen.resize(1, 2, {});
        feed(screen, "\x1b#6\x1b[Xld\r\n\r\n\xe5\xb2\xb2");
        screen.resize(5, 20, {});
        feed(screen, "\x1b[Hafter");
        QCOMPARE(screen.lineText(0), QStringLiteral("after"));
    }

    void attributes()
    {
        TerminalScreen screen(3, 40);
        feed(screen, "\x1b[1mB\x1b[0m\x1b[3mI\x1b[0m\x1b[4mU\x1b[0m\x1b[7mR\x1b[0m\x1b[9mS\x1b[0m"
                     "\x1b[21mD\x1b[0mn");
        QVERIFY(screen.cell(0, 0).has(TerminalCell::Bold));
        QVERIFY(!screen.cell(0, 0).has(TerminalCell::Italic));
        QVERIFY(screen.cell(0, 1).has(TerminalCell::Italic));
        QCOMPARE(screen.cell(0, 2).underline(), 1);
        QVERIFY(screen.cell(0, 3).has(TerminalCell::Reverse));
        QVERIFY(screen.cell(0, 4).has(TerminalCell::Strike));
        QCOMPARE(screen.cell(0, 5).underline(), 2);
        const TerminalCell plain = screen.cell(0, 6);
        QCOMPARE(plain.ch, U'n');
        QCOMPARE(plain.attrs, std::uint16_t(0));
        QVERIFY(plain.fg.isDefault() && plain.bg.isDefault());
    }

    void colours()
    {
        TerminalScreen screen(3, 40);
        feed(screen, "\x1b[31ma\x1b[44mb\x1b[0m\x1b[92mc\x1b[0m\x1b[38;5;208md\x1b[48;5;17me\x1b[0m"
                     "\x1b[38;2;10;20;30mf\x1b[48;2;200;100;50mg\x1b[39mh\x1b[49mi");
        QCOMPARE(screen.cell(0, 0).fg, TerminalColor::indexed(1));
        QVERIFY(screen.cell(0, 0).bg.isDefault());
        QCOMPARE(screen.cell(0, 1).fg, TerminalColor::indexed(1));
        QCOMPARE(screen.cell(0, 1).bg, TerminalColor::indexed(4));
        QCOMPARE(screen.cell(0, 2).fg, TerminalColor::indexed(10));
        QCOMPARE(screen.cell(0, 3).fg, TerminalColor::indexed(208));
        QCOMPARE(screen.cell(0, 4).bg, TerminalColor::indexed(17));
        QCOMPARE(screen.cell(0, 5).fg, TerminalColor::rgb(10, 20, 30));
        QCOMPARE(screen.cell(0, 6).bg, TerminalColor::rgb(200, 100, 50));
        QVERIFY(screen.cell(0, 7).fg.isDefault());
        QCOMPARE(screen.cell(0, 7).bg, TerminalColor::rgb(200, 100, 50));
        QVERIFY(screen.cell(0, 8).bg.isDefault());
    }

    void wideCharactersTakeTwoCells()
    {
        TerminalScreen screen(3, 20);
        feed(screen, "a\xe4\xb8\xad\xf0\x9f\x98\x80"
                     "b"); // a 中 😀 b
        QCOMPARE(screen.cell(0, 1).ch, U'\u4e2d');
        QCOMPARE(int(screen.cell(0, 1).width), 2);
        QVERIFY(screen.cell(0, 2).isWideTail());
        QCOMPARE(screen.cell(0, 3).ch, U'\U0001F600');
        QCOMPARE(int(screen.cell(0, 3).width), 2);
        QVERIFY(screen.cell(0, 4).isWideTail());
        QCOMPARE(screen.cell(0, 5).ch, U'b');
        QCOMPARE(screen.cursor().col, 6);
        QCOMPARE(screen.lineText(0), QString::fromUtf8("a\xe4\xb8\xad\xf0\x9f\x98\x80"
                                                       "b"));
    }

    void combiningMarksStayWithTheirBase()
    {
        TerminalScreen screen(3, 20);
        feed(screen, "e\xcc\x81x"); // e + COMBINING ACUTE, then x
        QCOMPARE(screen.cell(0, 0).ch, U'e');
        QVERIFY(screen.cell(0, 0).has(TerminalCell::Combining));
        QCOMPARE(sbui::cellTextOf(screen.line(0), 0), QString::fromUtf8("e\xcc\x81"));
        QCOMPARE(screen.cell(0, 1).ch, U'x');
        QCOMPARE(screen.lineText(0), QString::fromUtf8("e\xcc\x81x"));
        // Still together after the line scrolls into the scrollback.
        feed(screen, "\r\n");
        feedNumberedLines(screen, 5);
        QCOMPARE(screen.lineText(-screen.scrollbackSize()), QString::fromUtf8("e\xcc\x81x"));
    }

    void cursorShapes()
    {
        TerminalScreen screen(3, 20);
        QCOMPARE(screen.cursor().shape, TerminalCursor::Shape::Block);
        feed(screen, "\x1b[4 q");
        QCOMPARE(screen.cursor().shape, TerminalCursor::Shape::Underline);
        QVERIFY(!screen.cursor().blink);
        feed(screen, "\x1b[5 q");
        QCOMPARE(screen.cursor().shape, TerminalCursor::Shape::Bar);
        QVERIFY(screen.cursor().blink);
        feed(screen, "\x1b[2 q");
        QCOMPARE(screen.cursor().shape, TerminalCursor::Shape::Block);
    }

    void alternateScreenRestoresMainScreen()
    {
        TerminalScreen screen(4, 20);
        feed(screen, "main text\r\nprompt$ ");
        feed(screen, "\x1b[?1049h\x1b[H\x1b[2Jeditor");
        QVERIFY(screen.altScreen());
        QCOMPARE(screen.lineText(0), QStringLiteral("editor"));
        QCOMPARE(screen.lineText(1), QString());
        // Output in the alternate screen never reaches the scrollback.
        feedNumberedLines(screen, 10, "alt ");
        QCOMPARE(screen.scrollbackSize(), 0);
        feed(screen, "\x1b[?1049l");
        QVERIFY(!screen.altScreen());
        QCOMPARE(screen.lineText(0), QStringLiteral("main text"));
        QCOMPARE(screen.lineText(1), QStringLiteral("prompt$"));
        QCOMPARE(screen.cursor().row, 1);
        QCOMPARE(screen.cursor().col, 8);
    }

    void scrollbackKeepsLinesInOrderUpToTheLimit()
    {
        TerminalScreen screen(5, 20);
        screen.setScrollbackLimit(100);
        feedNumberedLines(screen, 300);
        QCOMPARE(screen.scrollbackSize(), 100);
        // 300 lines and the empty line after them: 296 went to the scrollback, the last 100
        // of those are kept.
        QCOMPARE(screen.lineText(-1), QStringLiteral("line 295"));
        QCOMPARE(screen.lineText(-100), QStringLiteral("line 196"));
        QCOMPARE(screen.lineText(0), QStringLiteral("line 296"));
        QCOMPARE(screen.firstScreenLine(), 296);
        screen.setScrollbackLimit(10);
        QCOMPARE(screen.scrollbackSize(), 10);
        QCOMPARE(screen.lineText(-1), QStringLiteral("line 295"));
        QCOMPARE(screen.lineText(-10), QStringLiteral("line 286"));
        feedNumberedLines(screen, 3, "more ");
        QCOMPARE(screen.scrollbackSize(), 10);
        QCOMPARE(screen.lineText(-1), QStringLiteral("line 298"));
        QCOMPARE(screen.lineText(-10), QStringLiteral("line 289"));
    }

    void scrollbackKeepsColours()
    {
        TerminalScreen screen(2, 20);
        feed(screen, "\x1b[1;38;5;208mhot\x1b[0m\r\nx\r\ny\r\n");
        QCOMPARE(screen.lineText(-2), QStringLiteral("hot"));
        const TerminalCell c = screen.cell(-2, 0);
        QVERIFY(c.has(TerminalCell::Bold));
        QCOMPARE(c.fg, TerminalColor::indexed(208));
    }

    void resizeKeepsScrollback()
    {
        TerminalScreen screen(10, 30);
        feedNumberedLines(screen, 40);
        const int before = screen.scrollbackSize();
        QCOMPARE(screen.lineText(-before), QStringLiteral("line 0"));
        // Fewer rows: lines leave the screen for the scrollback, none is lost.
        screen.resize(4, 30);
        QCOMPARE(screen.lineText(-screen.scrollbackSize()), QStringLiteral("line 0"));
        QCOMPARE(screen.scrollbackSize() + screen.rows(), before + 10);
        QCOMPARE(screen.lineText(-1), QStringLiteral("line 36"));
        // Narrower: lines wrap (reflow, see TerminalReflowTest), the oldest still first.
        screen.resize(4, 5);
        QCOMPARE(screen.lineText(-screen.scrollbackSize()), QStringLiteral("line"));
        QCOMPARE(screen.lineText(-screen.scrollbackSize() + 1), QStringLiteral("0"));
        // More rows again: lines come back from the scrollback onto the screen.
        screen.resize(12, 30);
        QCOMPARE(screen.lineText(-screen.scrollbackSize()), QStringLiteral("line 0"));
        QCOMPARE(screen.lineText(-1), QStringLiteral("line 28"));
        QCOMPARE(screen.lineText(0), QStringLiteral("line 29"));
        QCOMPARE(screen.lineText(7), QStringLiteral("line 36"));
        QCOMPARE(screen.lineText(11), QString());
        QCOMPARE(screen.scrollbackSize() + screen.rows(), before + 10);
    }

    void findsTextThatScrolledOff()
    {
        TerminalScreen screen(5, 40);
        feed(screen, "the needle is here\r\n");
        feedNumberedLines(screen, 50);
        feed(screen, "another Needle\r\n");
        feedNumberedLines(screen, 10, "after ");
        auto indexOf = [&](const sbui::TerminalMatch& m) {
            return static_cast<int>(m.line - screen.firstScreenLine());
        };
        const TerminalPos bottom{screen.firstScreenLine() + screen.rows() - 1, 1000};
        auto match = screen.find(QStringLiteral("needle"), bottom, true);
        QVERIFY(match);
        QVERIFY(indexOf(*match) < 0); // in the scrollback
        QCOMPARE(screen.lineText(indexOf(*match)), QStringLiteral("another Needle"));
        QCOMPARE(match->col, 8);
        QCOMPARE(match->length, 6);
        match = screen.find(QStringLiteral("needle"), TerminalPos{match->line, match->col}, true);
        QVERIFY(match);
        QCOMPARE(indexOf(*match), -screen.scrollbackSize());
        QCOMPARE(screen.lineText(indexOf(*match)), QStringLiteral("the needle is here"));
        QCOMPARE(match->col, 4);
        // Onwards from the oldest one wraps around to the newest.
        match = screen.find(QStringLiteral("needle"), TerminalPos{match->line, match->col}, true);
        QVERIFY(match);
        QCOMPARE(screen.lineText(indexOf(*match)), QStringLiteral("another Needle"));
        // Case-sensitive: only the first one.
        match = screen.find(QStringLiteral("Needle"), bottom, true, Qt::CaseSensitive);
        QVERIFY(match);
        QCOMPARE(match->col, 8);
        QVERIFY(!screen.find(QStringLiteral("haystack"), bottom, true));
    }

    void findMeasuresWideCharactersInColumns()
    {
        TerminalScreen screen(3, 40);
        feed(screen, "\xe4\xb8\xad\xe6\x96\x87 text"); // 中文 text
        auto match = screen.find(QStringLiteral("text"), TerminalPos{2, 1000}, true);
        QVERIFY(match);
        QCOMPARE(match->col, 5);
        match = screen.find(QString::fromUtf8("\xe6\x96\x87"), TerminalPos{2, 1000}, true);
        QVERIFY(match);
        QCOMPARE(match->col, 2);
        QCOMPARE(match->length, 2);
    }

    void titleBellAndReplies()
    {
        TerminalScreen screen(5, 20);
        QStringList titles;
        int bells = 0;
        QByteArray replies;
        screen.setTitleHandler([&](const QString& t) { titles << t; });
        screen.setBellHandler([&] { ++bells; });
        screen.setReplyHandler([&](const QByteArray& r) { replies += r; });
        feed(screen, "\x1b]0;first\x07\x1b]2;second \xc3\xa9\x1b\\");
        QCOMPARE(titles,
                 (QStringList{QStringLiteral("first"), QString::fromUtf8("second \xc3\xa9")}));
        QCOMPARE(screen.title(), QString::fromUtf8("second \xc3\xa9"));
        feed(screen, "a\x07"
                     "b\x07");
        QCOMPARE(bells, 2);
        feed(screen, "\x1b[2;3H\x1b[6n");
        QCOMPARE(replies, QByteArray("\x1b[2;3R"));
    }

    void bracketedPasteOnlyWhenEnabled()
    {
        TerminalScreen screen(5, 20);
        QCOMPARE(screen.pasteBytes(QStringLiteral("ls\nrm")), QByteArray("ls\rrm"));
        feed(screen, "\x1b[?2004h");
        QCOMPARE(screen.pasteBytes(QStringLiteral("ls\r\nrm")),
                 QByteArray("\x1b[200~ls\rrm\x1b[201~"));
        // An ESC in the text cannot end the bracket early.
        QCOMPARE(screen.pasteBytes(QStringLiteral("a\x1b[201~b")),
                 QByteArray("\x1b[200~a[201~b\x1b[201~"));
        feed(screen, "\x1b[?2004l");
        QCOMPARE(screen.pasteBytes(QStringLiteral("x\ty")), QByteArray("x\ty"));
    }

    void focusAndMouseReportsOnlyWhenAskedFor()
    {
        TerminalScreen screen(10, 40);
        QCOMPARE(screen.focusBytes(true), QByteArray());
        QCOMPARE(screen.mouseButtonBytes(1, true, Qt::NoModifier), QByteArray());
        feed(screen, "\x1b[?1004h\x1b[?1000h\x1b[?1006h");
        QCOMPARE(screen.focusBytes(true), QByteArray("\x1b[I"));
        QCOMPARE(screen.focusBytes(false), QByteArray("\x1b[O"));
        QCOMPARE(screen.mouseMode(), TerminalScreen::MouseMode::Click);
        QByteArray click = screen.mouseMoveBytes(2, 5, Qt::NoModifier);
        click += screen.mouseButtonBytes(1, true, Qt::NoModifier);
        QCOMPARE(click, QByteArray("\x1b[<0;6;3M"));
        QCOMPARE(screen.mouseButtonBytes(1, false, Qt::NoModifier), QByteArray("\x1b[<0;6;3m"));
    }

    void damageNamesChangedRows()
    {
        TerminalScreen screen(10, 20);
        feed(screen, "\x1b[5;1H");
        screen.takeDamage();
        feed(screen, "x");
        TerminalScreen::Damage d = screen.takeDamage();
        QCOMPARE(d.first, 4);
        QCOMPARE(d.last, 5);
        QCOMPARE(d.scrolled, std::int64_t(0));
        d = screen.takeDamage();
        QVERIFY(d.first >= d.last);
        feedNumberedLines(screen, 12);
        d = screen.takeDamage();
        QVERIFY(d.scrolled > 0);
    }

    void resetClearsEverything()
    {
        TerminalScreen screen(4, 20);
        feed(screen, "\x1b]2;t\x07\x1b[?1049h");
        feedNumberedLines(screen, 3);
        feed(screen, "\x1b[?1049l");
        feedNumberedLines(screen, 10);
        QVERIFY(screen.scrollbackSize() > 0);
        screen.reset();
        QCOMPARE(screen.scrollbackSize(), 0);
        QCOMPARE(screen.lineText(0), QString());
        QVERIFY(!screen.altScreen());
        QCOMPARE(screen.title(), QString());
        QCOMPARE(screen.cursor().row, 0);
    }
};

QTEST_MAIN(TerminalScreenTest)
#include "TerminalScreenTest.moc"
