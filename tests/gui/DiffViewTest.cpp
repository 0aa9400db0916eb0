// The review's diff view on known pairs: unified text (checked against GNU diff through the
// core), side-by-side rows, intra-line ranges, the white-space toggle, binary files, images
// before and after, large files compared off the GUI thread, and colours that follow the theme.
#include "files/DiffView.h"

#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "files/LineDiff.h"
#include "files/ReviewStyle.h"
#include "workspace/Workspace.h"

#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QHelpEvent>
#include <QImage>
#include <QMenu>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QToolTip>
#include <QWheelEvent>

using sbui::DiffModel;
using sbui::DiffView;
namespace diff = sbui::diff;

Q_DECLARE_METATYPE(sbui::diff::Range)

namespace {

sb::ChangeSide side(const QByteArray& content)
{
    sb::ChangeSide s;
    s.exists = true;
    s.content = content.toStdString();
    s.size = static_cast<std::uint64_t>(content.size());
    return s;
}

sb::ChangeContent change(const QByteArray& before, const QByteArray& after)
{
    return {side(before), side(after)};
}

QByteArray png(const QSize& size, Qt::GlobalColor color)
{
    QImage image(size, QImage::Format_RGB32);
    image.fill(color);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

// GNU diff's opinion of the same pair, through the core (`diff -u` over the two files).
QString gnuDiff(const QByteArray& before, const QByteArray& after)
{
    QTemporaryDir dir;
    QDir(dir.path()).mkpath(QStringLiteral("project"));
    QDir(dir.path()).mkpath(QStringLiteral("upper"));
    auto write = [](const QString& path, const QByteArray& content) {
        QFile file(path);
        file.open(QIODevice::WriteOnly);
        file.write(content);
    };
    write(dir.filePath(QStringLiteral("project/x")), before);
    write(dir.filePath(QStringLiteral("upper/x")), after);
    auto text = sb::unifiedDiff(dir.filePath(QStringLiteral("upper")).toStdString(),
                                dir.filePath(QStringLiteral("project")).toStdString(), {"x"});
    if (!text) return QString::fromStdString(text.error().describe());
    // The hunks alone: the view's unified text has no git header ("diff --git a/x b/x").
    QString hunks = QString::fromStdString(*text);
    if (hunks.startsWith(QStringLiteral("diff --git "))) hunks.remove(0, hunks.indexOf('\n') + 1);
    return hunks;
}

QStringList rowTexts(const DiffModel* model)
{
    QStringList rows;
    for (int r = 0; r < model->rowCount(); ++r)
        rows << model->rowText(r);
    return rows;
}

const QByteArray kBefore = "alpha\nbeta\ngamma\ndelta\n";
const QByteArray kAfter = "alpha\nbeta two\ngamma\ndelta\nepsilon\n";

} // namespace

class DiffViewTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void unifiedTextMatchesGnuDiff_data()
    {
        QTest::addColumn<QByteArray>("before");
        QTest::addColumn<QByteArray>("after");
        QTest::newRow("changed and appended") << kBefore << kAfter;
        QTest::newRow("added file") << QByteArray() << QByteArray("one\ntwo\n");
        QTest::newRow("emptied file") << QByteArray("one\ntwo\n") << QByteArray();
        QTest::newRow("no newline at the end") << QByteArray("a\nb") << QByteArray("a\nb\n");
        QTest::newRow("newline removed") << QByteArray("a\nb\n") << QByteArray("a\nc");
        QByteArray longBefore, longAfter;
        for (int i = 1; i <= 40; ++i) {
            longBefore += "line " + QByteArray::number(i) + "\n";
            longAfter += (i == 5 || i == 30 ? "changed " : "line ") + QByteArray::number(i) + "\n";
        }
        QTest::newRow("two hunks") << longBefore << longAfter;
        QByteArray nearBefore = longBefore, nearAfter = longBefore;
        nearAfter.replace("line 10\n", "ten\n").replace("line 16\n", "sixteen\n");
        QTest::newRow("hunks five lines apart merge") << nearBefore << nearAfter;
        for (int gap : {6, 7}) {
            QByteArray changed = longBefore;
            changed.replace("line 10\n", "ten\n")
                .replace("line " + QByteArray::number(11 + gap) + "\n", "other\n");
            QTest::newRow(qPrintable(QStringLiteral("changes %1 lines apart").arg(gap)))
                << longBefore << changed;
        }
    }

    void unifiedTextMatchesGnuDiff()
    {
        QFETCH(QByteArray, before);
        QFETCH(QByteArray, after);
        const auto result = diff::compare(QString::fromUtf8(before), QString::fromUtf8(after));
        QCOMPARE(diff::unifiedText(result, 3, QStringLiteral("a/x"), QStringLiteral("b/x")),
                 gnuDiff(before, after));
    }

    void unifiedRowsInTheView()
    {
        DiffView view;
        view.showChange(QStringLiteral("x"), change(kBefore, kAfter));
        QCOMPARE(view.page(), DiffView::Page::Text);
        QCOMPARE(rowTexts(view.model()),
                 (QStringList{"@@ -1,4 +1,5 @@", " alpha", "-beta", "+beta two", " gamma", " delta",
                              "+epsilon"}));
        QCOMPARE(view.unifiedText(), gnuDiff(kBefore, kAfter));
        // Line numbers of each side, and the sign column.
        QCOMPARE(view.model()->index(2, DiffModel::OldNumberColumn).data().toInt(), 2);
        QVERIFY(!view.model()->index(3, DiffModel::OldNumberColumn).data().isValid());
        QCOMPARE(view.model()->index(3, DiffModel::NewNumberColumn).data().toInt(), 2);
        QCOMPARE(view.model()->index(3, DiffModel::SignColumn).data().toString(), "+");
    }

    void sideBySideRows()
    {
        DiffView view;
        view.setLayoutMode(DiffView::Layout::SideBySide);
        view.showChange(QStringLiteral("x"), change(kBefore, kAfter));
        QCOMPARE(rowTexts(view.model()),
                 (QStringList{"@@ -1,4 +1,5 @@", " alpha |  alpha", "-beta | +beta two",
                              " gamma |  gamma", " delta |  delta", " | +epsilon"}));
        // A removed line faces the line that replaced it, and an added one a blank side.
        QCOMPARE(
            view.model()->index(2, DiffModel::LeftTextColumn).data(DiffModel::CellRole).toInt(),
            static_cast<int>(DiffModel::Cell::Removed));
        QCOMPARE(
            view.model()->index(5, DiffModel::LeftTextColumn).data(DiffModel::CellRole).toInt(),
            static_cast<int>(DiffModel::Cell::Blank));
        view.setLayoutMode(DiffView::Layout::Unified);
        QCOMPARE(view.model()->rowCount(), 7);
    }

    // Side by side in a narrow pane (365 px, the Changes tab beside the docks): both sides in
    // view, half each; a line longer than its half is cut and its tooltip shows it whole.
    void sideBySideKeepsBothSidesInANarrowPane()
    {
        const QString longLine =
            QStringLiteral("    return sum(values) / len(values)  # and a comment long enough");
        DiffView view;
        view.resize(365, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setLayoutMode(DiffView::Layout::SideBySide);
        view.showChange(QStringLiteral("x"), change("a\n" + longLine.toUtf8() + "\n",
                                                    "b\n" + longLine.toUtf8() + "!\n"));
        QTableView* table = view.table();
        QTest::qWait(20);
        const int width = table->viewport()->width();
        for (int column : {DiffModel::LeftTextColumn, DiffModel::RightTextColumn}) {
            const int left = table->columnViewportPosition(column);
            QVERIFY2(left >= 0 && left + table->columnWidth(column) <= width,
                     qPrintable(QStringLiteral("column %1 at %2+%3 of %4")
                                    .arg(column)
                                    .arg(left)
                                    .arg(table->columnWidth(column))
                                    .arg(width)));
        }
        int row = -1;
        for (int r = 0; r < view.model()->rowCount(); ++r)
            if (view.model()->index(r, DiffModel::RightTextColumn).data().toString() ==
                longLine + u'!')
                row = r;
        QVERIFY(row >= 0);
        const QRect cell = table->visualRect(view.model()->index(row, DiffModel::RightTextColumn));
        QHelpEvent help(QEvent::ToolTip, cell.center(),
                        table->viewport()->mapToGlobal(cell.center()));
        QApplication::sendEvent(table->viewport(), &help);
        QTRY_COMPARE(QToolTip::text(), longLine + u'!');
    }

    // A line longer than its side can be read side by side: a bar under the table pans the text
    // of both sides together (issue 37, item 13), and the sides stay where they are.
    void sideBySideLongLinesPanSideways()
    {
        const QByteArray longLine = "    total = " + QByteArray(120, 'x') + " # the end";
        DiffView view;
        view.resize(500, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setLayoutMode(DiffView::Layout::SideBySide);
        view.showChange(QStringLiteral("x"),
                        change("a\n" + longLine + "\n", "b\n" + longLine + "!\n"));
        QTableView* table = view.table();
        QScrollBar* pan = view.panBar();
        QTRY_VERIFY(pan->isVisible());
        QVERIFY(pan->maximum() > 0);
        const int rightColumnAt = table->columnViewportPosition(DiffModel::RightTextColumn);
        const QImage start = table->viewport()->grab().toImage();
        pan->setValue(pan->maximum());
        QApplication::processEvents();
        const QImage end = table->viewport()->grab().toImage();
        QVERIFY(start != end); // the text moved
        sbgt::screenshot(view, QStringLiteral("diff-side-by-side-panned"));
        QCOMPARE(table->columnViewportPosition(DiffModel::RightTextColumn), rightColumnAt);
        // Shift with the wheel pans too.
        pan->setValue(0);
        QWheelEvent wheel(QPointF(10, 10), table->viewport()->mapToGlobal(QPointF(10, 10)),
                          QPoint(), QPoint(0, -120), Qt::NoButton, Qt::ShiftModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(table->viewport(), &wheel);
        QVERIFY(pan->value() > 0);

        view.setLayoutMode(DiffView::Layout::Unified); // the table scrolls by itself there
        QTRY_VERIFY(!pan->isVisible());
    }

    // The toggles side by side in a wide pane; in a narrow one, a View menu with the same
    // actions, the header never wider than the pane.
    void narrowPaneFoldsTheTogglesIntoAMenu()
    {
        DiffView view;
        view.resize(900, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.showChange(QStringLiteral("calc.py"), change(kBefore, kAfter));
        QTRY_VERIFY(!view.viewButton()->isVisible());
        view.resize(200, 300);
        QTRY_VERIFY(view.viewButton()->isVisible());
        QVERIFY(view.minimumSizeHint().width() <= 200);
        const QList<QAction*> actions = view.viewButton()->menu()->actions();
        QVERIFY(actions.contains(view.sideBySideAction()));
        QVERIFY(actions.contains(view.ignoreWhitespaceAction()));
        QVERIFY(actions.contains(view.wholeFileAction()));
        QVERIFY(view.viewButton()->geometry().right() < view.width());
        view.sideBySideAction()->trigger();
        QCOMPARE(view.layoutMode(), DiffView::Layout::SideBySide);
        view.resize(900, 300);
        QTRY_VERIFY(!view.viewButton()->isVisible());
    }

    void intraLineRanges()
    {
        auto [a, b] = diff::intraLine(QStringLiteral("int x = 1;"), QStringLiteral("int x = 2;"));
        QCOMPARE(a, (QList<diff::Range>{{8, 1}}));
        QCOMPARE(b, (QList<diff::Range>{{8, 1}}));
        auto [c, d] = diff::intraLine(QStringLiteral("beta"), QStringLiteral("beta two"));
        QVERIFY(c.isEmpty());
        QCOMPARE(d, (QList<diff::Range>{{4, 4}}));
        // Nothing in common: no speckles, the line's own colour says it all.
        auto [e, f] = diff::intraLine(QStringLiteral("abcdef"), QStringLiteral("uvwxyz"));
        QVERIFY(e.isEmpty() && f.isEmpty());

        DiffView view;
        view.showChange(QStringLiteral("x"), change("int x = 1;\nrest\n", "int x = 2;\nrest\n"));
        QCOMPARE(view.model()->rowHighlights(1, 0), (QList<diff::Range>{{8, 1}}));
        QCOMPARE(view.model()->rowHighlights(2, 0), (QList<diff::Range>{{8, 1}}));
        // The view's text expands tabs; its ranges move with them.
        view.showChange(QStringLiteral("x"), change("\tx = 1;\n", "\tx = 2;\n"));
        const QVariantList shown =
            view.model()->index(1, DiffModel::TextColumn).data(DiffModel::HighlightsRole).toList();
        QCOMPARE(shown.size(), 1);
        QCOMPARE(shown.front().toPoint(), QPoint(8, 1));
    }

    void whitespaceToggle()
    {
        const QByteArray before = "if (a)  {\n  return 1;\n}\n";
        const QByteArray after = "if (a) {\n    return 1;\n}\n";
        DiffView view;
        view.showChange(QStringLiteral("x.c"), change(before, after));
        QCOMPARE(view.page(), DiffView::Page::Text);
        QCOMPARE(view.model()->result()->removed, 2);
        view.ignoreWhitespaceAction()->trigger();
        QCOMPARE(view.page(), DiffView::Page::Message);
        QCOMPARE(view.summaryText(), DiffView::tr("Only white space changed."));
        view.ignoreWhitespaceAction()->trigger();
        QCOMPARE(view.page(), DiffView::Page::Text);

        // With a real change among white-space ones, only the real one is a change.
        view.setIgnoreWhitespace(true);
        view.showChange(QStringLiteral("x.c"), change("a = 1;\nb  =  2;\n", "a = 1;\nb = 3;\n"));
        QCOMPARE(rowTexts(view.model()),
                 (QStringList{"@@ -1,2 +1,2 @@", " a = 1;", "-b  =  2;", "+b = 3;"}));
        QCOMPARE(view.model()->rowHighlights(2, 0), (QList<diff::Range>{{6, 1}}));
        QCOMPARE(view.model()->rowHighlights(3, 0), (QList<diff::Range>{{4, 1}}));
    }

    void binaryFilesShowSizesAndType()
    {
        DiffView view;
        QByteArray before("\x00\x01\x02", 3), after("\x00\x01\x02\x03\x04", 5);
        view.showChange(QStringLiteral("blob.bin"), change(before, after));
        QCOMPARE(view.page(), DiffView::Page::Binary);
        QVERIFY2(view.summaryText().contains(QLatin1String("3 bytes")),
                 qPrintable(view.summaryText()));
        QVERIFY2(view.summaryText().contains(QLatin1String("5 bytes")),
                 qPrintable(view.summaryText()));
        QVERIFY(view.summaryText().contains(QLatin1String("application/octet-stream")));
        QVERIFY(view.unifiedText().isEmpty());

        sb::ChangeContent added = change({}, before);
        added.before = {};
        view.showChange(QStringLiteral("blob.bin"), added);
        QVERIFY(view.summaryText().contains(DiffView::tr("none, the file is new")));
    }

    void imagesShowBeforeAndAfter()
    {
        DiffView view;
        view.showChange(QStringLiteral("icon.png"),
                        change(png(QSize(4, 3), Qt::red), png(QSize(8, 8), Qt::blue)));
        QCOMPARE(view.page(), DiffView::Page::Image);
        QCOMPARE(view.beforeImage().size(), QSize(4, 3));
        QCOMPARE(view.afterImage().size(), QSize(8, 8));
        QCOMPARE(view.afterImage().pixelColor(0, 0), QColor(Qt::blue));
        QVERIFY2(view.summaryText().contains(QStringLiteral("4 × 3 px")),
                 qPrintable(view.summaryText()));
    }

    // A large file is compared on the worker thread; the view says so meanwhile.
    void largeFilesAreComparedOffTheGuiThread()
    {
        QByteArray before, after;
        for (int i = 0; i < 100000; ++i) {
            before += "line " + QByteArray::number(i) + "\n";
            after += (i == 50000 ? "LINE " : "line ") + QByteArray::number(i) + "\n";
        }
        DiffView view;
        QSignalSpy shown(&view, &DiffView::shown);
        view.showChange(QStringLiteral("big.txt"), change(before, after));
        QVERIFY(view.isComputing());
        QCOMPARE(view.page(), DiffView::Page::Message);
        QTRY_VERIFY_WITH_TIMEOUT(!view.isComputing(), 30000);
        QCOMPARE(shown.count(), 1);
        QCOMPARE(view.page(), DiffView::Page::Text);
        QCOMPARE(view.model()->rowText(0), QStringLiteral("@@ -49998,7 +49998,7 @@"));
        QCOMPARE(view.model()->rowCount(), 9);
    }

    // Two unrelated large texts would take minutes line by line: they show as replaced.
    void unrelatedLargeTextsShowAsReplaced()
    {
        QString before, after;
        for (int i = 0; i < 30000; ++i) {
            before += QStringLiteral("old %1\n").arg(i);
            after += QStringLiteral("new %1\n").arg(i);
        }
        const auto result = diff::compare(before, after);
        QVERIFY(result.coarse);
        QCOMPARE(result.removed, 30000);
        QCOMPARE(result.added, 30000);
    }

    void messagesAndEmptyFiles()
    {
        DiffView view;
        QCOMPARE(view.page(), DiffView::Page::Empty);
        view.showChange(QStringLiteral("empty"), change({}, {}));
        QCOMPARE(view.summaryText(), DiffView::tr("An empty file."));
        view.showMessage(QStringLiteral("src"), QStringLiteral("3 changes inside."));
        QCOMPARE(view.page(), DiffView::Page::Message);
        view.clear();
        QCOMPARE(view.page(), DiffView::Page::Empty);
    }

    // Diff colours come from the palette: light tints on a light theme, dark ones on a dark.
    void coloursFollowThePalette()
    {
        QPalette light;
        light.setColor(QPalette::Base, QColor(255, 255, 255));
        light.setColor(QPalette::Text, QColor(20, 20, 20));
        QPalette dark;
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::Text, QColor(230, 230, 230));
        QVERIFY(sbui::ReviewStyle::diffColors(light).addedLine.lightness() > 200);
        QVERIFY(sbui::ReviewStyle::diffColors(dark).addedLine.lightness() < 80);
        QVERIFY(sbui::ReviewStyle::diffColors(dark).addedWord.lightness() >
                sbui::ReviewStyle::diffColors(dark).addedLine.lightness());

        DiffView view;
        view.setPalette(dark);
        view.showChange(QStringLiteral("x"), change(kBefore, kAfter));
        auto background = [&](int row) {
            return view.model()
                ->index(row, DiffModel::TextColumn)
                .data(Qt::BackgroundRole)
                .value<QColor>();
        };
        QVERIFY(background(3).lightness() < 80); // "+beta two"
        QVERIFY(background(3).green() > background(3).red());
        view.setPalette(light);
        QVERIFY(background(3).lightness() > 200);
    }
};

QTEST_MAIN(DiffViewTest)
#include "DiffViewTest.moc"
