// TerminalWidget (ui/terminal) on a real event loop: output, selection and the clipboard, paste,
// keys and the window's shortcuts, read-only, scrollback, find, resize, flood behaviour and what
// it paints.
#include "terminal/TerminalWidget.h"

#include "terminal/TerminalSearchBar.h"

#include <QApplication>
#include <QClipboard>
#include <QLineEdit>
#include <QScrollBar>
#include <QShortcut>
#include <QSignalSpy>
#include <QTest>
#include <QVBoxLayout>

using sbui::TerminalWidget;

namespace {

QByteArray numberedLines(int count, const char* prefix = "line ")
{
    QByteArray out;
    for (int i = 0; i < count; ++i)
        out += prefix + QByteArray::number(i) + "\r\n";
    return out;
}

// Counts paint events of a widget.
class PaintCounter : public QObject {
  public:
    int paints = 0;
    bool eventFilter(QObject*, QEvent* event) override
    {
        if (event->type() == QEvent::Paint) ++paints;
        return false;
    }
};

QByteArray allInput(const QSignalSpy& spy)
{
    QByteArray out;
    for (const QList<QVariant>& args : spy)
        out += args.at(0).toByteArray();
    return out;
}

} // namespace

class TerminalWidgetTest : public QObject {
    Q_OBJECT

    // A shown window with the terminal (fixed at rows × cols) and a line edit after it.
    struct Window {
        QWidget window;
        TerminalWidget* term;
        QLineEdit* edit;
        Window(int rows, int cols)
        {
            auto* layout = new QVBoxLayout(&window);
            term = new TerminalWidget(&window);
            edit = new QLineEdit(&window);
            layout->addWidget(term);
            layout->addWidget(edit);
            term->resizeTerminal(rows, cols);
            window.resize(900, 700);
            window.show();
            term->setFocus();
        }
        // Waits until the window is active and the terminal has the keyboard focus.
        bool activate()
        {
            if (!QTest::qWaitForWindowActive(&window)) return false;
            term->setFocus();
            return QTest::qWaitFor([this] { return term->hasFocus(); });
        }
        QPoint cellLeft(int row, int col) const
        {
            const QRect r = term->cellRect(row, col);
            return {r.left() + 1, r.center().y()};
        }
        QPoint cellCenter(int row, int col) const { return term->cellRect(row, col).center(); }
    };

  private Q_SLOTS:
    void init() { QGuiApplication::clipboard()->clear(); }

    void outputTitleAndBell()
    {
        TerminalWidget term;
        QSignalSpy titles(&term, &TerminalWidget::titleChanged);
        QSignalSpy bells(&term, &TerminalWidget::bell);
        term.resizeTerminal(5, 30);
        term.feed("\x1b]2;agent at work\x07hello\r\n\x1b[1mworld\x1b[0m   \x07");
        QCOMPARE(term.screenText(), QStringLiteral("hello\nworld\n\n\n"));
        QCOMPARE(term.lineText(1), QStringLiteral("world"));
        QCOMPARE(titles.count(), 1);
        QCOMPARE(titles.at(0).at(0).toString(), QStringLiteral("agent at work"));
        QCOMPARE(bells.count(), 1);
        QCOMPARE(term.rows(), 5);
        QCOMPARE(term.columns(), 30);
    }

    void keepsItsDefaultSizeUntilShown()
    {
        QWidget window;
        auto* layout = new QVBoxLayout(&window);
        auto* term = new TerminalWidget(&window);
        layout->addWidget(term);
        QSignalSpy sizes(term, &TerminalWidget::sizeChanged);
        QCOMPARE(term->rows(), 24);
        QCOMPARE(term->columns(), 80);
        // Output that arrives before the window shows is laid out at 80 columns, not at the
        // width of a widget that has no size yet.
        const QByteArray line(70, 'x');
        term->feed(line);
        QCOMPARE(term->lineText(0), QString::fromLatin1(line));
        QCOMPARE(sizes.count(), 0);
        window.resize(700, 500);
        window.show();
        QTRY_VERIFY(sizes.count() > 0);
        QCOMPARE(sizes.last().at(1).toInt(), term->columns());
    }

    void repliesGoToTheProgram()
    {
        TerminalWidget term;
        QSignalSpy input(&term, &TerminalWidget::inputReady);
        term.feed("\x1b[6n");
        QCOMPARE(allInput(input), QByteArray("\x1b[1;1R"));
    }

    void dragSelectsAndCtrlShiftCCopies()
    {
        Window w(6, 40);
        w.term->feed("hello world\r\nsecond line here");
        QWidget* vp = w.term->viewport();
        QTest::mousePress(vp, Qt::LeftButton, {}, w.cellLeft(0, 6));
        QTest::mouseMove(vp, w.cellLeft(1, 6));
        QTest::mouseRelease(vp, Qt::LeftButton, {}, w.cellLeft(1, 6));
        QVERIFY(w.term->hasSelection());
        QCOMPARE(w.term->selectedText(), QStringLiteral("world\nsecond"));
        QSignalSpy input(w.term, &TerminalWidget::inputReady);
        QTest::keyClick(w.term, Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("world\nsecond"));
        QCOMPARE(input.count(), 0); // never sent to the program
    }

    void doubleClickSelectsAWordTripleClickALine()
    {
        Window w(6, 60);
        w.term->feed("run ./build/app --flag=value now\r\n");
        QWidget* vp = w.term->viewport();
        QTest::mouseDClick(vp, Qt::LeftButton, {}, w.cellCenter(0, 8));
        QCOMPARE(w.term->selectedText(), QStringLiteral("./build/app"));
        QTest::mousePress(vp, Qt::LeftButton, {}, w.cellCenter(0, 8));
        QTest::mouseRelease(vp, Qt::LeftButton, {}, w.cellCenter(0, 8));
        QCOMPARE(w.term->selectedText(), QStringLiteral("run ./build/app --flag=value now"));
        w.term->copySelection();
        QCOMPARE(QGuiApplication::clipboard()->text(),
                 QStringLiteral("run ./build/app --flag=value now"));
        // A plain click afterwards clears it.
        QTest::qWait(QApplication::doubleClickInterval() + 50);
        QTest::mouseClick(vp, Qt::LeftButton, {}, w.cellCenter(0, 2));
        QVERIFY(!w.term->hasSelection());
    }

    void pasteIsBracketedOnlyWhenTheProgramAskedForIt()
    {
        Window w(6, 40);
        QSignalSpy input(w.term, &TerminalWidget::inputReady);
        QGuiApplication::clipboard()->setText(QStringLiteral("echo 1\necho 2"));
        QTest::keyClick(w.term, Qt::Key_V, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(allInput(input), QByteArray("echo 1\recho 2"));
        input.clear();
        w.term->feed("\x1b[?2004h");
        QTest::keyClick(w.term, Qt::Key_V, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(allInput(input), QByteArray("\x1b[200~echo 1\recho 2\x1b[201~"));
        input.clear();
        w.term->feed("\x1b[?2004l");
        QTest::keyClick(w.term, Qt::Key_Insert, Qt::ShiftModifier);
        QCOMPARE(allInput(input), QByteArray("echo 1\recho 2"));
    }

    void keysReachTheProgram()
    {
        Window w(6, 40);
        QSignalSpy input(w.term, &TerminalWidget::inputReady);
        QTest::keyClicks(w.term, QStringLiteral("ls"));
        QTest::keyClick(w.term, Qt::Key_Up);
        w.term->feed("\x1b[?1h");
        QTest::keyClick(w.term, Qt::Key_Up);
        QTest::keyClick(w.term, Qt::Key_C, Qt::ControlModifier);
        QTest::keyClick(w.term, Qt::Key_Return);
        QCOMPARE(allInput(input), QByteArray("ls\x1b[A\x1bOA\x03\r"));
    }

    void tabStaysInTheTerminal()
    {
        Window w(6, 40);
        QVERIFY(w.activate());
        QSignalSpy input(w.term, &TerminalWidget::inputReady);
        QTest::keyClick(w.term, Qt::Key_Tab);
        QTest::keyClick(w.term, Qt::Key_Backtab, Qt::ShiftModifier);
        QCOMPARE(allInput(input), QByteArray("\t\x1b[Z"));
        QVERIFY(w.term->hasFocus());
        QVERIFY(!w.edit->hasFocus());
    }

    void windowShortcutsGetCtrlShiftLettersButNotTerminalKeys()
    {
        Window w(6, 40);
        QVERIFY(w.activate());
        QShortcut approve(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Y), &w.window);
        QShortcut closeTab(QKeySequence(Qt::CTRL | Qt::Key_W), &w.window);
        QSignalSpy approved(&approve, &QShortcut::activated);
        QSignalSpy closed(&closeTab, &QShortcut::activated);
        QSignalSpy input(w.term, &TerminalWidget::inputReady);
        QTest::keyClick(w.term, Qt::Key_Y, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(approved.count(), 1);
        QTest::keyClick(w.term, Qt::Key_W, Qt::ControlModifier);
        QCOMPARE(closed.count(), 0); // Ctrl+W erases a word in the shell
        QCOMPARE(allInput(input), QByteArray("\x17"));
        // Read-only, the terminal claims nothing: the window's shortcut works.
        w.term->setReadOnly(true);
        QTest::keyClick(w.term, Qt::Key_W, Qt::ControlModifier);
        QCOMPARE(closed.count(), 1);
    }

    void readOnlyIgnoresKeysAndPasteButCopies()
    {
        Window w(6, 40);
        w.term->setReadOnly(true);
        QVERIFY(w.term->isReadOnly());
        QSignalSpy input(w.term, &TerminalWidget::inputReady);
        w.term->feed("recorded output\r\n\x1b[6n\x1b[?2004h");
        QTest::keyClicks(w.term, QStringLiteral("rm -rf"));
        QTest::keyClick(w.term, Qt::Key_Return);
        QGuiApplication::clipboard()->setText(QStringLiteral("pasted"));
        QTest::keyClick(w.term, Qt::Key_V, Qt::ControlModifier | Qt::ShiftModifier);
        w.term->paste();
        QCOMPARE(input.count(), 0);
        QTest::mouseDClick(w.term->viewport(), Qt::LeftButton, {}, w.cellCenter(0, 2));
        QTest::keyClick(w.term, Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("recorded"));
        w.term->setReadOnly(false);
        QTest::keyClick(w.term, Qt::Key_A);
        QCOMPARE(allInput(input), QByteArray("a"));
    }

    void scrollbackWithKeysAndWheel()
    {
        Window w(10, 40);
        w.term->feed(numberedLines(100));
        QCOMPARE(w.term->scrollOffset(), 0);
        QCOMPARE(w.term->screen().scrollbackSize(), 91);
        QTest::keyClick(w.term, Qt::Key_PageUp, Qt::ShiftModifier);
        QCOMPARE(w.term->scrollOffset(), 10);
        QTest::keyClick(w.term, Qt::Key_PageDown, Qt::ShiftModifier);
        QCOMPARE(w.term->scrollOffset(), 0);
        QWheelEvent up(QPointF(20, 20), w.term->viewport()->mapToGlobal(QPointF(20, 20)), QPoint(),
                       QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(w.term->viewport(), &up);
        QCOMPARE(w.term->scrollOffset(), QApplication::wheelScrollLines());
        // New output does not pull the view away while scrolled back.
        const int before = w.term->scrollOffset();
        w.term->feed(numberedLines(5, "new "));
        QTRY_COMPARE(w.term->scrollOffset(), before + 5);
        // Typing returns to the bottom.
        QTest::keyClick(w.term, Qt::Key_X);
        QCOMPARE(w.term->scrollOffset(), 0);
        QTest::keyClick(w.term, Qt::Key_Home, Qt::ShiftModifier);
        QCOMPARE(w.term->scrollOffset(), w.term->screen().scrollbackSize());
    }

    // A fixed screen taller than the widget (a replay in a short pane): the view follows the
    // cursor down, the scroll bar reaches the screen's rows out of view, and the wheel, a
    // search and new output move the view as over scrollback.
    void fixedScreenTallerThanTheView()
    {
        Window w(24, 40);
        const int cell = w.term->cellSize().height();
        w.window.resize(900, 10 * cell + w.edit->sizeHint().height() + 30);
        QTRY_VERIFY(w.term->viewport()->height() < 12 * cell);
        const int shown = w.term->viewport()->height() / cell;
        QVERIFY(shown >= 5);
        w.term->feed("top\r\n");
        QCOMPARE(w.term->scrollOffset(), 0); // the cursor is in view from the top
        w.term->feed(numberedLines(20));
        QCOMPARE(w.term->screen().cursor().row, 21);
        QCOMPARE(w.term->scrollOffset(), -(22 - shown));
        QCOMPARE(w.term->verticalScrollBar()->maximum(), 24 - shown);
        QCOMPARE(w.term->verticalScrollBar()->value(), 22 - shown);
        // The last line written is painted in the last rows of the view.
        const int lastRow = 21 + w.term->scrollOffset();
        QVERIFY(w.term->cellRect(lastRow, 0).bottom() < w.term->viewport()->height());
        QCOMPARE(w.term->lineText(20), QStringLiteral("line 19"));
        // Up to the screen's top, and a search brings a line back into view.
        w.term->verticalScrollBar()->setValue(0);
        QCOMPARE(w.term->scrollOffset(), 0);
        QVERIFY(w.term->find(QStringLiteral("line 18")));
        const int matchRow =
            static_cast<int>(w.term->currentMatch()->line - w.term->screen().firstScreenLine()) +
            w.term->scrollOffset();
        QVERIFY(matchRow >= 0 && matchRow < shown);
        // Cleared to the top, following again: the view goes back up with the cursor.
        w.term->find(QString());
        w.term->verticalScrollBar()->setValue(w.term->verticalScrollBar()->maximum());
        w.term->reset();
        w.term->feed("again\r\n");
        QCOMPARE(w.term->scrollOffset(), 0);
    }

    void wheelGoesToProgramsThatWantIt()
    {
        Window w(10, 40);
        w.term->feed(numberedLines(50));
        QSignalSpy input(w.term, &TerminalWidget::inputReady);
        auto wheel = [&](int delta, Qt::KeyboardModifiers mods = Qt::NoModifier) {
            const QPointF at = w.term->cellRect(2, 5).center();
            QWheelEvent e(at, w.term->viewport()->mapToGlobal(at), QPoint(), QPoint(0, delta),
                          Qt::NoButton, mods, Qt::NoScrollPhase, false);
            QApplication::sendEvent(w.term->viewport(), &e);
        };
        // Alternate screen (less, man): cursor keys, no scrolling.
        w.term->feed("\x1b[?1049h");
        wheel(120);
        QCOMPARE(allInput(input), QByteArray("\x1b[A").repeated(QApplication::wheelScrollLines()));
        QCOMPARE(w.term->scrollOffset(), 0);
        input.clear();
        // A program that reports the mouse (SGR): wheel up is button 4 at the cell.
        w.term->feed("\x1b[?1000h\x1b[?1006h");
        wheel(60); // half a notch: nothing yet
        QCOMPARE(input.count(), 0);
        wheel(60);
        QCOMPARE(allInput(input), QByteArray("\x1b[<64;6;3M"));
        input.clear();
        // Back in the main screen without mouse reports, the wheel scrolls the scrollback.
        w.term->feed("\x1b[?1000l\x1b[?1049l");
        wheel(120);
        QCOMPARE(input.count(), 0);
        QCOMPARE(w.term->scrollOffset(), QApplication::wheelScrollLines());
    }

    void scrollbackLimitIsConfigurable()
    {
        TerminalWidget term;
        term.resizeTerminal(5, 20);
        QCOMPARE(term.scrollbackLines(), 10000);
        term.setScrollbackLines(50);
        term.feed(numberedLines(500));
        QCOMPARE(term.screen().scrollbackSize(), 50);
        QCOMPARE(term.lineText(-50), QStringLiteral("line 446"));
    }

    void findInScrollback()
    {
        Window w(8, 40);
        QVERIFY(w.activate());
        w.term->feed("the needle is here\r\n");
        w.term->feed(numberedLines(300));
        QTest::keyClick(w.term, Qt::Key_F, Qt::ControlModifier | Qt::ShiftModifier);
        sbui::TerminalSearchBar* bar = w.term->searchBar();
        QVERIFY(bar->isVisible());
        // The find field has the focus.
        QWidget* field = QApplication::focusWidget();
        QVERIFY(field && field->parentWidget() == bar);
        QTest::keyClicks(field, QStringLiteral("needle"));
        QVERIFY(w.term->currentMatch());
        const sbui::TerminalMatch match = *w.term->currentMatch();
        QCOMPARE(match.col, 4);
        QCOMPARE(
            w.term->lineText(static_cast<int>(match.line - w.term->screen().firstScreenLine())),
            QStringLiteral("the needle is here"));
        // Scrolled so the match is in view.
        const int offset = w.term->scrollOffset();
        QVERIFY(offset > 0);
        const std::int64_t top = w.term->screen().firstScreenLine() - offset;
        QVERIFY(match.line >= top && match.line < top + w.term->rows());
        // Nothing else matches: Enter wraps around to the same one.
        QTest::keyClick(field, Qt::Key_Return);
        QCOMPARE(w.term->currentMatch()->line, match.line);
        QTest::keyClicks(field, QStringLiteral("xyz"));
        QVERIFY(!w.term->currentMatch());
        QTest::keyClick(field, Qt::Key_Escape);
        QVERIFY(!bar->isVisible());
        QVERIFY(w.term->hasFocus());
    }

    void findStepsBetweenMatches()
    {
        TerminalWidget term;
        term.resizeTerminal(4, 40);
        term.feed("match one\r\nfiller\r\nmatch two\r\n");
        term.feed(numberedLines(20));
        QVERIFY(term.find(QStringLiteral("match"), true));
        const std::int64_t newest = term.currentMatch()->line;
        QVERIFY(term.find(QStringLiteral("match"), true));
        const std::int64_t older = term.currentMatch()->line;
        QCOMPARE(older, newest - 2);
        QVERIFY(term.find(QStringLiteral("match"), false));
        QCOMPARE(term.currentMatch()->line, newest);
    }

    void widgetResizeSetsTheTerminalSizeAndKeepsScrollback()
    {
        QWidget window;
        auto* layout = new QVBoxLayout(&window);
        layout->setContentsMargins(0, 0, 0, 0);
        auto* term = new TerminalWidget(&window);
        layout->addWidget(term);
        QSignalSpy sizes(term, &TerminalWidget::sizeChanged);
        window.resize(800, 600);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY(sizes.count() > 0);
        const QSize cell = term->cellSize();
        const QSize area = term->viewport()->size();
        QCOMPARE(sizes.last().at(0).toInt(), area.height() / cell.height());
        QCOMPARE(term->rows(), area.height() / cell.height());
        // As many columns as fit whole.
        QVERIFY(term->cellRect(0, term->columns() - 1).right() < area.width());
        QVERIFY(term->cellRect(0, term->columns()).right() >= area.width() - 1);
        term->feed(numberedLines(200));
        QCOMPARE(term->lineText(-term->screen().scrollbackSize()), QStringLiteral("line 0"));
        const int rowsBefore = term->rows();
        window.resize(500, 300);
        QTRY_VERIFY(term->rows() < rowsBefore);
        QCOMPARE(sizes.last().at(0).toInt(), term->rows());
        QCOMPARE(sizes.last().at(1).toInt(), term->columns());
        QCOMPARE(term->lineText(-term->screen().scrollbackSize()), QStringLiteral("line 0"));
        QCOMPARE(term->lineText(-1), QStringLiteral("line ") + QString::number(200 - term->rows()));
    }

    void resizeKeepsSelectionMatchAndViewOnTheirText()
    {
        Window w(6, 40);
        w.term->feed(numberedLines(30));
        w.term->feed("the quick brown fox jumps over the lazy dog\r\n$ ");
        QCOMPARE(w.term->lineText(3), QStringLiteral("the quick brown fox jumps over the lazy"));
        QTest::mouseDClick(w.term->viewport(), Qt::LeftButton, {}, w.cellCenter(3, 36));
        QCOMPARE(w.term->selectedText(), QStringLiteral("lazy"));
        QVERIFY(w.term->find(QStringLiteral("jumps")));
        auto matchedText = [&] {
            const sbui::TerminalMatch m = *w.term->currentMatch();
            const int index = static_cast<int>(m.line - w.term->screen().firstScreenLine());
            return sbui::textOf(w.term->screen().line(index), m.col, m.col + m.length);
        };
        QCOMPARE(matchedText(), QStringLiteral("jumps"));
        // Narrower: "lazy" now spans a wrap, "jumps" ends past a row's end.
        w.term->resizeTerminal(6, 12);
        QCOMPARE(w.term->lineText(4), QStringLiteral("azy dog"));
        QCOMPARE(w.term->selectedText(), QStringLiteral("lazy"));
        QCOMPARE(matchedText(), QStringLiteral("jump"));
        w.term->resizeTerminal(6, 40);
        QCOMPARE(w.term->selectedText(), QStringLiteral("lazy"));
        QCOMPARE(matchedText(), QStringLiteral("jumps"));
        // Scrolled back, the view stays on the same line.
        w.term->clearSelection();
        QTest::keyClick(w.term, Qt::Key_PageUp, Qt::ShiftModifier);
        QTest::keyClick(w.term, Qt::Key_PageUp, Qt::ShiftModifier);
        const QString top = w.term->lineText(-w.term->scrollOffset());
        QCOMPARE(top, QStringLiteral("line 15"));
        w.term->resizeTerminal(6, 15);
        QVERIFY(w.term->scrollOffset() > 0);
        QCOMPARE(w.term->lineText(-w.term->scrollOffset()), top);
    }

    void alternateScreenThroughTheWidget()
    {
        TerminalWidget term;
        term.resizeTerminal(4, 30);
        term.feed("$ vim notes\r\n");
        term.feed("\x1b[?1049h\x1b[H\x1b[2J~ vim ~");
        QCOMPARE(term.lineText(0), QStringLiteral("~ vim ~"));
        term.feed("\x1b[?1049l");
        QCOMPARE(term.lineText(0), QStringLiteral("$ vim notes"));
    }

    void resetClearsScreenAndScrollback()
    {
        TerminalWidget term;
        term.resizeTerminal(4, 30);
        term.feed(numberedLines(50));
        term.reset();
        QCOMPARE(term.screen().scrollbackSize(), 0);
        QCOMPARE(term.screenText(), QStringLiteral("\n\n\n"));
    }

    void aFloodIsParsedInSlicesWithoutBlocking()
    {
        Window w(24, 80);
        QByteArray flood;
        for (int i = 0; flood.size() < 16 * 1024 * 1024; ++i)
            flood += "\x1b[3" + QByteArray::number(i % 8) + "mflood line " + QByteArray::number(i) +
                     " \xe4\xb8\xad\xe6\x96\x87 some more text to fill the line\x1b[0m\r\n";
        flood += "THE END";
        QElapsedTimer clock;
        clock.start();
        w.term->feed(flood);
        const qint64 feedMs = clock.elapsed();
        QVERIFY2(w.term->hasPendingInput(), "16 MB cannot have been parsed within one slice");
        QVERIFY2(feedMs < 500, qPrintable(QStringLiteral("feed() took %1 ms").arg(feedMs)));
        // The event loop keeps turning meanwhile: a 10 ms timer keeps firing.
        int ticks = 0;
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, [&] { ++ticks; });
        ticker.start(10);
        QTRY_VERIFY_WITH_TIMEOUT(!w.term->hasPendingInput(), 120000);
        QVERIFY(ticks > 0);
        QCOMPARE(w.term->lineText(w.term->screen().cursor().row), QStringLiteral("THE END"));
    }

    void paintsAreCoalesced()
    {
        Window w(24, 80);
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTest::qWait(100);
        PaintCounter counter;
        w.term->viewport()->installEventFilter(&counter);
        for (int i = 0; i < 500; ++i)
            w.term->feed("chunk " + QByteArray::number(i) + "\r\n");
        QTest::qWait(200);
        QVERIFY2(counter.paints >= 1, "the output was painted");
        QVERIFY2(counter.paints <= 3, qPrintable(QString::number(counter.paints) + " paints"));
    }

    void paintsColoursAndFollowsThePalette()
    {
        Window w(6, 40);
        QPalette light = w.term->palette();
        light.setColor(QPalette::Base, QColor(250, 250, 250));
        light.setColor(QPalette::Text, QColor(20, 20, 20));
        w.term->setPalette(light);
        w.term->feed("\x1b[41m   \x1b[0m\x1b[48;2;10;200;30m   \x1b[0m\x1b[7m   \x1b[0m   ");
        auto pixel = [&](int col) {
            const QImage image = w.term->viewport()->grab().toImage();
            return image.pixelColor(w.term->cellRect(0, col).center());
        };
        QCOMPARE(pixel(1), QColor(0xc0, 0x1c, 0x28)); // red: palette index 1
        QCOMPARE(pixel(4), QColor(10, 200, 30));      // true colour
        QCOMPARE(pixel(7), QColor(20, 20, 20));       // reverse: default foreground
        QCOMPARE(pixel(10), QColor(250, 250, 250));   // default background
        QPalette dark = light;
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::Text, QColor(220, 220, 220));
        w.term->setPalette(dark);
        QCOMPARE(pixel(10), QColor(30, 30, 30));
        QCOMPARE(pixel(7), QColor(220, 220, 220));
        QCOMPARE(pixel(1), QColor(0xc0, 0x1c, 0x28));
    }

    void paintsTheCursorWhereItIs()
    {
        Window w(6, 40);
        QVERIFY(w.activate());
        QPalette p = w.term->palette();
        p.setColor(QPalette::Base, Qt::white);
        p.setColor(QPalette::Text, Qt::black);
        w.term->setPalette(p);
        w.term->feed("\x1b[2 q\x1b[3;5H"); // steady block at row 2, column 4
        const QImage image = w.term->viewport()->grab().toImage();
        QCOMPARE(image.pixelColor(w.term->cellRect(2, 4).center()), QColor(Qt::black));
        QCOMPARE(image.pixelColor(w.term->cellRect(2, 6).center()), QColor(Qt::white));
        w.term->feed("\x1b[?25l");
        const QImage hidden = w.term->viewport()->grab().toImage();
        QCOMPARE(hidden.pixelColor(w.term->cellRect(2, 4).center()), QColor(Qt::white));
    }
};

QTEST_MAIN(TerminalWidgetTest)
#include "TerminalWidgetTest.moc"
