// Reflow on resize (TerminalScreen over libvterm, ui/terminal/TerminalReflow.h): which rows the
// terminal soft-wrapped, lines re-wrapped at a new width and back, wide characters, combining
// marks, colours, the cursor, the scrollback and its limit, the alternate screen, a prompt.
#include "terminal/TerminalScreen.h"

#include <QTest>

using sbui::TerminalCell;
using sbui::TerminalColor;
using sbui::TerminalLine;
using sbui::TerminalScreen;

namespace {

void feed(TerminalScreen& screen, const QByteArray& bytes)
{
    screen.write(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

// Every row, scrollback then screen, as its text; a row the text ran into from the row before
// starts with '~', or '^' when the row before ends with a padding column.
QStringList layout(const TerminalScreen& screen)
{
    QStringList rows;
    for (int i = -screen.scrollbackSize(); i < screen.rows(); ++i) {
        const TerminalLine::Break joins = screen.line(i).joins;
        const QString mark = joins == TerminalLine::Break::Soft               ? QStringLiteral("~")
                             : joins == TerminalLine::Break::SoftAfterPadding ? QStringLiteral("^")
                                                                              : QString();
        rows << mark + screen.lineText(i);
    }
    return rows;
}

// The text as the program wrote it: wrapped rows joined again, empty lines at the end dropped.
QStringList logicalLines(const TerminalScreen& screen)
{
    QStringList lines;
    const int end = screen.rows();
    for (int i = -screen.scrollbackSize(); i < end; ++i) {
        const TerminalLine& line = screen.line(i);
        const TerminalLine::Break next =
            i + 1 < end ? screen.line(i + 1).joins : TerminalLine::Break::Hard;
        // A row the next one continues holds text up to the margin, blanks included.
        const int width = next == TerminalLine::Break::Soft               ? screen.columns()
                          : next == TerminalLine::Break::SoftAfterPadding ? screen.columns() - 1
                                                                          : -1;
        QString text = width < 0 ? screen.lineText(i) : sbui::textOf(line, 0, width);
        if (width > static_cast<int>(line.cells.size()))
            text += QString(width - static_cast<int>(line.cells.size()), u' ');
        if (line.joins != TerminalLine::Break::Hard && !lines.isEmpty())
            lines.last() += text;
        else
            lines << text;
    }
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

// No wide character starts in the last column (its right half would be on the next row).
bool noWideCharacterSplit(const TerminalScreen& screen)
{
    for (int i = -screen.scrollbackSize(); i < screen.rows(); ++i)
        if (screen.cell(i, screen.columns() - 1).width == 2) return false;
    return true;
}

QPair<int, int> cursorOf(const TerminalScreen& screen)
{
    return {screen.cursor().row, screen.cursor().col};
}

} // namespace

class TerminalReflowTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void softWrapsAreToldFromLineBreaks()
    {
        TerminalScreen screen(6, 10);
        feed(screen, "0123456789abcde\r\n");
        // Exactly full, then a line break: not a wrap.
        feed(screen, "ABCDEFGHIJ\r\nnext\r\n");
        // A wide character that does not fit into the last column.
        feed(screen, "abcdefghi\xe4\xb8\xad");
        QCOMPARE(layout(screen), QStringList({"0123456789", "~abcde", "ABCDEFGHIJ", "next",
                                              "abcdefghi", QString::fromUtf8("^\xe4\xb8\xad")}));
        // Scrolling keeps them, into the scrollback too.
        feed(screen, "\r\nklmnopqrstuvwxyz");
        QCOMPARE(screen.scrollbackSize(), 2);
        QCOMPARE(layout(screen).mid(0, 3), QStringList({"0123456789", "~abcde", "ABCDEFGHIJ"}));
        QCOMPARE(layout(screen).mid(6), QStringList({"klmnopqrst", "~uvwxyz"}));
    }

    void longLineNarrowedThenWidened()
    {
        TerminalScreen screen(5, 20);
        feed(screen, "0123456789ABCDEFGHIJabcdefghij\r\n$ ");
        const QStringList original{"0123456789ABCDEFGHIJ", "~abcdefghij", "$", "", ""};
        QCOMPARE(layout(screen), original);
        screen.resize(5, 10);
        QCOMPARE(layout(screen),
                 QStringList({"0123456789", "~ABCDEFGHIJ", "~abcdefghij", "$", ""}));
        QCOMPARE(screen.cell(1, 0).ch, U'A');
        QCOMPARE(screen.cell(2, 9).ch, U'j');
        QCOMPARE(cursorOf(screen), qMakePair(3, 2));
        screen.resize(5, 40);
        QCOMPARE(layout(screen), QStringList({"0123456789ABCDEFGHIJabcdefghij", "$", "", "", ""}));
        QCOMPARE(cursorOf(screen), qMakePair(1, 2));
        screen.resize(5, 20);
        QCOMPARE(layout(screen), original);
        QCOMPARE(cursorOf(screen), qMakePair(2, 2));
    }

    void roundTripRestoresTheLayout()
    {
        TerminalScreen screen(8, 30);
        QByteArray out;
        for (int i = 0; i < 60; ++i) {
            out += "L" + QByteArray::number(i) + ":" + QByteArray(i % 47, char('a' + i % 26));
            if (i % 5 == 0) out += "\xe4\xb8\xad\xe6\x96\x87"; // 中文
            out += "\r\n";
        }
        out += "$ typed";
        feed(screen, out);
        const QStringList before = layout(screen);
        const QStringList text = logicalLines(screen);
        const auto cursor = cursorOf(screen);
        QCOMPARE(text.size(), 61);
        const QList<QPair<int, int>> sizes{{8, 13}, {8, 7}, {5, 30}, {12, 61}, {8, 100}, {3, 2}};
        for (const auto& [rows, cols] : sizes) {
            screen.resize(rows, cols);
            QCOMPARE(logicalLines(screen), text); // nothing lost, nothing reordered
            QVERIFY(noWideCharacterSplit(screen));
        }
        screen.resize(8, 30);
        QCOMPARE(layout(screen), before);
        QCOMPARE(cursorOf(screen), cursor);
    }

    void wideCharactersMoveWhole()
    {
        TerminalScreen screen(4, 10);
        feed(screen, "abcdefghi\xe4\xb8\xadjk"); // abcdefghi中jk
        const QString wide = QString::fromUtf8("\xe4\xb8\xad");
        QCOMPARE(layout(screen).mid(0, 2), QStringList({"abcdefghi", "^" + wide + "jk"}));
        screen.resize(4, 5);
        QCOMPARE(layout(screen).mid(0, 3), QStringList({"abcde", "~fghi", "^" + wide + "jk"}));
        QCOMPARE(screen.cell(1, 4).ch, U'\0'); // the padding
        QCOMPARE(screen.cell(2, 0).ch, U'\u4e2d');
        QVERIFY(screen.cell(2, 1).isWideTail());
        screen.resize(4, 4);
        QCOMPARE(layout(screen).mid(0, 4), QStringList({"abcd", "~efgh", "~i" + wide + "j", "~k"}));
        screen.resize(4, 11);
        QCOMPARE(layout(screen).mid(0, 2), QStringList({"abcdefghi" + wide, "~jk"}));
        screen.resize(4, 10);
        QCOMPARE(layout(screen).mid(0, 2), QStringList({"abcdefghi", "^" + wide + "jk"}));
    }

    void combiningMarksStayWithTheirBase()
    {
        TerminalScreen screen(3, 5);
        feed(screen, "abcde\xcc\x81"
                     "fg"); // the acute joins the e in the last column
        const QString accented = QString::fromUtf8("e\xcc\x81");
        QCOMPARE(layout(screen).mid(0, 2), QStringList({"abcd" + accented, "~fg"}));
        screen.resize(3, 3);
        QCOMPARE(sbui::cellTextOf(screen.line(1), 1), accented);
        QCOMPARE(layout(screen), QStringList({"abc", "~d" + accented + "f", "~g"}));
        screen.resize(3, 8);
        QCOMPARE(sbui::cellTextOf(screen.line(0), 4), accented);
        QCOMPARE(screen.lineText(0), "abcd" + accented + "fg");
    }

    void coloursAndAttributesSurvive()
    {
        TerminalScreen screen(3, 10);
        feed(screen, "\x1b[1;31mBOLDRED\x1b[0m\x1b[4;38;2;1;2;3;48;5;17mRGBunder\x1b[0m");
        screen.resize(4, 4);
        QCOMPARE(layout(screen), QStringList({"BOLD", "~REDR", "~GBun", "~der"}));
        const TerminalCell red = screen.cell(1, 0);
        QCOMPARE(red.ch, U'R');
        QVERIFY(red.has(TerminalCell::Bold));
        QCOMPARE(red.fg, TerminalColor::indexed(1));
        const TerminalCell rgb = screen.cell(1, 3);
        QCOMPARE(rgb.ch, U'R');
        QVERIFY(!rgb.has(TerminalCell::Bold));
        QCOMPARE(rgb.underline(), 1);
        QCOMPARE(rgb.fg, TerminalColor::rgb(1, 2, 3));
        QCOMPARE(rgb.bg, TerminalColor::indexed(17));
        screen.resize(3, 10);
        QCOMPARE(screen.cell(0, 6).fg, TerminalColor::indexed(1));
        QCOMPARE(screen.cell(1, 4).bg, TerminalColor::indexed(17));
        QCOMPARE(screen.lineText(1), QStringLiteral("under"));
    }

    void cursorStaysOnItsCharacter()
    {
        TerminalScreen screen(4, 20);
        feed(screen, "0123456789abcdefghijKLMNO\x1b[1;8H"); // on the 7
        const QStringList original = layout(screen);
        screen.resize(4, 6);
        // Five rows now: the first goes into the scrollback, the cursor's stays on screen.
        QCOMPARE(layout(screen), QStringList({"012345", "~6789ab", "~cdefgh", "~ijKLMN", "~O"}));
        QCOMPARE(cursorOf(screen), qMakePair(0, 1));
        QCOMPARE(screen.cell(0, 1).ch, U'7');
        screen.resize(4, 20);
        QCOMPARE(layout(screen), original);
        QCOMPARE(cursorOf(screen), qMakePair(0, 7));
    }

    void pendingWrapKeepsTheCursorAfterTheText()
    {
        TerminalScreen screen(4, 20);
        feed(screen, "0123456789abcdefghij"); // the cursor waits in the last column
        screen.resize(4, 25);
        QCOMPARE(cursorOf(screen), qMakePair(0, 20));
        feed(screen, "X");
        QCOMPARE(screen.lineText(0), QStringLiteral("0123456789abcdefghijX"));
        // Narrower, the cursor goes to the row after the text; what comes next continues it.
        screen.resize(4, 7);
        QCOMPARE(layout(screen), QStringList({"0123456", "~789abcd", "~efghijX", "~"}));
        QCOMPARE(cursorOf(screen), qMakePair(3, 0));
        feed(screen, "YZ");
        screen.resize(4, 30);
        QCOMPARE(layout(screen), QStringList({"0123456789abcdefghijXYZ", "", "", ""}));
        QCOMPARE(cursorOf(screen), qMakePair(0, 23));
    }

    void narrowingKeepsEveryLineInOrder()
    {
        TerminalScreen screen(6, 24);
        QStringList expected;
        QByteArray out;
        for (int i = 0; i < 40; ++i) {
            const QByteArray line = "line-" + QByteArray::number(i) + "-" +
                                    QByteArray(i % 15, 'x') + " with spaces -end";
            expected << QString::fromLatin1(line);
            out += line + "\r\n";
        }
        feed(screen, out);
        QCOMPARE(logicalLines(screen), expected);
        const int rowsBefore = screen.scrollbackSize() + screen.rows();
        screen.resize(6, 7);
        QCOMPARE(logicalLines(screen), expected);
        QVERIFY(screen.scrollbackSize() + screen.rows() > 2 * rowsBefore);
        QCOMPARE(screen.lineText(-screen.scrollbackSize()), QStringLiteral("line-0-"));
        // The cursor's empty line stays at the bottom, the last line just above it.
        QCOMPARE(screen.lineText(5), QString());
        QCOMPARE(screen.lineText(4), QStringLiteral("s -end"));
        screen.resize(6, 24);
        QCOMPARE(logicalLines(screen), expected);
        QCOMPARE(screen.scrollbackSize() + screen.rows(), rowsBefore);
    }

    void scrollbackLimitHoldsAfterReflow()
    {
        TerminalScreen screen(4, 20);
        screen.setScrollbackLimit(15);
        QByteArray out;
        for (int i = 10; i < 50; ++i)
            out += "row-" + QByteArray::number(i) + "-abcdefghijklm\r\n"; // 20 columns
        feed(screen, out);
        QCOMPARE(screen.scrollbackSize(), 15);
        screen.resize(4, 10);
        QCOMPARE(screen.scrollbackSize(), 15);
        // The newest rows are kept, in order; the screen starts with the end of row-48.
        const QStringList rows = layout(screen);
        QCOMPARE(rows.mid(0, 3), QStringList({"row-41-abc", "~defghijklm", "row-42-abc"}));
        QCOMPARE(rows.mid(14),
                 QStringList({"row-48-abc", "~defghijklm", "row-49-abc", "~defghijklm", ""}));
        // Wider again: fewer rows, none of the dropped ones back.
        screen.resize(4, 20);
        QCOMPARE(screen.scrollbackSize(), 6);
        QCOMPARE(screen.lineText(-6), QStringLiteral("row-41-abcdefghijklm"));
        QCOMPARE(screen.lineText(-1), QStringLiteral("row-46-abcdefghijklm"));
        QCOMPARE(screen.lineText(0), QStringLiteral("row-47-abcdefghijklm"));
        QCOMPARE(screen.lineText(2), QStringLiteral("row-49-abcdefghijklm"));
    }

    void alternateScreenIsNotReflowedAndTheMainScreenComesBack()
    {
        TerminalScreen screen(4, 20);
        feed(screen, "0123456789abcdefghijKLMNO\r\n$ vim");
        const QStringList original = layout(screen);
        // The switch arrives in two pieces.
        feed(screen, "\x1b[?10");
        feed(screen, "49h\x1b[H\x1b[2JALT-0123456789abcdef\x1b[2;1Hsecond");
        QVERIFY(screen.altScreen());
        screen.resize(4, 10);
        // Cut, not wrapped: the program redraws it for the new size.
        QCOMPARE(screen.lineText(0), QStringLiteral("ALT-012345"));
        QCOMPARE(screen.lineText(1), QStringLiteral("second"));
        QCOMPARE(screen.line(1).joins, TerminalLine::Break::Hard);
        screen.resize(4, 15);
        feed(screen, "\x1b[?1049l");
        QVERIFY(!screen.altScreen());
        QCOMPARE(layout(screen), QStringList({"0123456789abcde", "~fghijKLMNO", "$ vim", ""}));
        QCOMPARE(cursorOf(screen), qMakePair(2, 5));
        screen.resize(4, 20);
        QCOMPARE(layout(screen), original);
        // Without a resize meanwhile, libvterm's own copy comes back as it was.
        feed(screen, "\x1b[?1049hfull screen\x1b[?1049l");
        QCOMPARE(layout(screen), original);
    }

    void eraseEndsAWrap()
    {
        TerminalScreen screen(3, 10);
        feed(screen, "1\r\n2\r\nAAAAAAAAAABBBB\r\n\r\n"); // the B row continues a scrolled-off row
        QCOMPARE(layout(screen).mid(2), QStringList({"AAAAAAAAAA", "~BBBB", "", ""}));
        feed(screen, "\x1b[2J\x1b[1;3Hxy"); // cleared; nothing written in column 0
        screen.resize(3, 20);
        QCOMPARE(screen.lineText(-1), QStringLiteral("AAAAAAAAAA"));
        QCOMPARE(screen.lineText(0), QStringLiteral("  xy"));
    }

    void promptAfterManyLines()
    {
        TerminalScreen screen(10, 40);
        QByteArray out;
        for (int i = 0; i < 200; ++i)
            out += "line " + QByteArray::number(i) + "\r\n";
        feed(screen, out + "user@host:~/project$ git status --short");
        screen.resize(10, 16);
        QCOMPARE(layout(screen).mid(screen.scrollbackSize() + 6),
                 QStringList({"line 199", "user@host:~/proj", "~ect$ git status", "~--short"}));
        QCOMPARE(cursorOf(screen), qMakePair(9, 7));
        feed(screen, "x");
        QCOMPARE(screen.lineText(9), QStringLiteral("--shortx"));
        screen.resize(10, 50);
        QCOMPARE(screen.lineText(9), QStringLiteral("user@host:~/project$ git status --shortx"));
        QCOMPARE(cursorOf(screen), qMakePair(9, 40));
        QCOMPARE(screen.lineText(8), QStringLiteral("line 199"));
        QCOMPARE(screen.lineText(-screen.scrollbackSize()), QStringLiteral("line 0"));
        QCOMPARE(screen.scrollbackSize() + 9, 200);
    }
};

QTEST_MAIN(TerminalReflowTest)
#include "TerminalReflowTest.moc"
