// The activity timeline widget: kind toggles, "denied only", search with Ctrl+F, the details of
// the selected event, following the newest row, and a long session's worth of events.
#include "activity/ActivityView.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeView>

using json = nlohmann::json;
using sbui::ActivityModel;
using sbui::ActivityView;
using Category = ActivityModel::Category;

namespace {

json command(const std::string& what, const std::string& decision, int i = 0)
{
    return {{"kind", "command"},
            {"program", "/usr/bin/" + what},
            {"argv", {what, "arg" + std::to_string(i)}},
            {"cwd", "/home/u/project/sub" + std::to_string(i)},
            {"pid", 100 + i},
            {"decision", decision},
            {"rule", "commands.default"},
            {"time_unix_ms", std::int64_t{1'764'465'704'000} + i}};
}

json network(const std::string& host, const std::string& decision)
{
    return {{"kind", "network"},     {"type", "decided"},
            {"host", host},          {"port", 443},
            {"protocol", "connect"}, {"address", "10.0.0.1"},
            {"decision", decision},  {"rule", "network.default"},
            {"asked", false},        {"time_unix_ms", std::int64_t{1'764'465'705'000}}};
}

QStringList shownSummaries(const ActivityView& view)
{
    QStringList out;
    const auto* model = view.table()->model();
    for (int r = 0; r < model->rowCount(); ++r)
        out << model->index(r, ActivityModel::SummaryColumn).data().toString();
    return out;
}

} // namespace

class ActivityViewTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void kindTogglesAndDeniedOnly()
    {
        ActivityView view;
        view.addEvent(command("make", "allow"));
        view.addEvent(network("example.com", "allow"));
        view.addEvent(network("evil.example", "deny"));
        view.addEvent({{"kind", "lifecycle"}, {"type", "exit"}, {"status", 2}});
        view.model()->flush();
        QCOMPARE(view.table()->model()->rowCount(), 4);

        QToolButton* network = view.categoryButton(Category::Network);
        QVERIFY(!network->font().strikeOut());
        QVERIFY(network->toolTip().contains(QStringLiteral("shown")));
        network->click();
        QVERIFY(!network->isChecked());
        // Off looks off: struck out, and the tooltip says it.
        QVERIFY(network->font().strikeOut());
        QVERIFY(network->toolTip().contains(QStringLiteral("hidden")));
        QCOMPARE(shownSummaries(view),
                 QStringList({QStringLiteral("make arg0"), QStringLiteral("exit 2")}));
        network->click();
        QVERIFY(!network->font().strikeOut());
        QVERIFY(!view.deniedOnlyButton()->font().bold());
        view.deniedOnlyButton()->click();
        QVERIFY(view.deniedOnlyButton()->font().bold()); // on: it narrows everything
        QCOMPARE(shownSummaries(view),
                 QStringList({QStringLiteral("evil.example:443 denied by network.default")}));
        view.deniedOnlyButton()->click();
        QVERIFY(!view.deniedOnlyButton()->font().bold());
        QCOMPARE(view.table()->model()->rowCount(), 4);
    }

    void searchFieldFiltersAndCtrlFFocusesIt()
    {
        ActivityView view;
        view.resize(900, 500);
        view.show();
        view.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&view));
        for (int i = 0; i < 20; ++i)
            view.addEvent(command(i % 2 ? "git" : "make", "allow", i));
        view.model()->flush();
        view.table()->setFocus();
        QTRY_VERIFY(view.table()->hasFocus());
        QTest::keyClick(view.table(), Qt::Key_F, Qt::ControlModifier);
        QVERIFY(view.searchEdit()->hasFocus());
        QTest::keyClicks(view.searchEdit(), QStringLiteral("GIT"));
        // Applied after a pause in the typing.
        QTRY_COMPARE(view.table()->model()->rowCount(), 10);
        QVERIFY(shownSummaries(view).contains(QStringLiteral("git arg7")));
        // A field shown only in the details: the working folder.
        view.searchEdit()->setText(QStringLiteral("/home/u/project/sub12"));
        view.applySearch();
        QCOMPARE(shownSummaries(view), QStringList({QStringLiteral("make arg12")}));
        view.searchEdit()->clear();
        view.applySearch();
        QCOMPARE(view.table()->model()->rowCount(), 20);
    }

    void detailsPaneShowsTheSelectedEvent()
    {
        ActivityView view;
        view.addEvent(command("make", "allow", 1));
        view.addEvent(network("evil.example", "deny"));
        view.model()->flush();
        QVERIFY(view.detailsPane()->toPlainText().isEmpty());
        view.table()->setCurrentIndex(view.table()->model()->index(0, 0));
        const QString details = view.detailsPane()->toPlainText();
        QVERIFY2(details.contains(QStringLiteral("make arg1")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("/home/u/project/sub1")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("/usr/bin/make")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("pid")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("started")), qPrintable(details));

        view.table()->setCurrentIndex(view.table()->model()->index(1, 0));
        const QString other = view.detailsPane()->toPlainText();
        QVERIFY2(other.contains(QStringLiteral("evil.example")), qPrintable(other));
        QVERIFY2(other.contains(QStringLiteral("10.0.0.1")), qPrintable(other));
        QVERIFY(!other.contains(QStringLiteral("/usr/bin/make")));

        // Filtered away: the details follow the row that is current now.
        view.categoryButton(Category::Network)->click();
        const QString after = view.detailsPane()->toPlainText();
        QVERIFY2(!after.contains(QStringLiteral("evil.example")), qPrintable(after));
        QCOMPARE(after.isEmpty(), !view.table()->currentIndex().isValid());
    }

    void followsTheNewestUnlessScrolledUp()
    {
        ActivityView view;
        view.resize(800, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        for (int i = 0; i < 500; ++i)
            view.addEvent(command("touch", "allow", i));
        view.model()->flush();
        QScrollBar* bar = view.table()->verticalScrollBar();
        QTRY_VERIFY(bar->maximum() > 0);
        QTRY_COMPARE(bar->value(), bar->maximum());
        QVERIFY(view.isFollowingNewest());

        bar->setValue(10); // the user reads older events
        QVERIFY(!view.isFollowingNewest());
        for (int i = 500; i < 600; ++i)
            view.addEvent(command("touch", "allow", i));
        view.model()->flush();
        QCoreApplication::processEvents();
        QCOMPARE(bar->value(), 10);

        bar->setValue(bar->maximum()); // back at the bottom: follow again
        QVERIFY(view.isFollowingNewest());
        const int before = bar->maximum();
        for (int i = 600; i < 700; ++i)
            view.addEvent(command("touch", "allow", i));
        view.model()->flush();
        QTRY_VERIFY(bar->maximum() > before);
        QTRY_COMPARE(bar->value(), bar->maximum());
    }

    void hundredThousandEvents()
    {
        ActivityView view;
        view.resize(900, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // What keeps a long session fast: rows of one height, laid out without asking each one,
        // and no widget per row.
        QVERIFY(view.table()->uniformRowHeights());
        QSignalSpy inserted(view.filterModel(), &QAbstractItemModel::rowsInserted);
        for (int i = 0; i < 100000; ++i)
            view.addEvent(command(i % 10 ? "touch" : "rm", i % 10 ? "allow" : "deny", i));
        view.model()->flush();
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(view.table()->model()->rowCount(), 100000);
        QScrollBar* bar = view.table()->verticalScrollBar();
        QTRY_COMPARE(bar->value(), bar->maximum());
        const QModelIndex last = view.table()->model()->index(99999, 0);
        QVERIFY(view.table()->visualRect(last).isValid());
        QCOMPARE(view.table()->indexWidget(last), nullptr);
        view.deniedOnlyButton()->click();
        QCOMPARE(view.table()->model()->rowCount(), 10000);
        view.searchEdit()->setText(QStringLiteral("arg99990"));
        view.applySearch();
        QCOMPARE(shownSummaries(view), QStringList({QStringLiteral("rm arg99990")}));
    }
};

QTEST_MAIN(ActivityViewTest)
#include "ActivityViewTest.moc"
