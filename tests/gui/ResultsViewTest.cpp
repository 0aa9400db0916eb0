// The window's Results tab (issue 36, item 5): a code interpreter's executions as the recording
// and the live events carry them (docs/recording.md, code_execution): a chart as a picture, a
// DataFrame as a table, an error in red with its traceback, a picture too large to record said
// so; and an ended session's recording fills the tab, which follows its replay. Screenshots in
// German: run aRecordedSessionShowsItsResults and theTabFollowsTheReplay alone (the other
// compares English texts).
#include "results/ResultsView.h"

#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "activity/ActivityModel.h"
#include "activity/ActivityView.h"
#include "base/ActivityKinds.h"
#include "control/ControlClient.h"
#include "main/MainWindow.h"
#include "recording/CodeExecution.h"
#include "recording/RecordingStore.h"
#include "recording/RecordingWriter.h"
#include "replay/ReplayController.h"
#include "replay/ReplayTime.h"
#include "replay/ReplayView.h"
#include "results/ResultWidgets.h"
#include "sessions/SessionHub.h"
#include "terminal/TerminalWidget.h"

#include <QBuffer>
#include <QDateTime>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <atomic>

using namespace sbgt;
using nlohmann::json;
using sbui::ResultsView;

namespace {

const QString kSession = QStringLiteral("results-recorded");
// The same executions 10 s apart (at 10, 20, 30 and 40 s), the recording ending at 45 s.
const QString kReplayed = QStringLiteral("results-replayed");
constexpr qint64 kSecond = 1'000'000'000;
const qint64 kStartMs = QDateTime::currentMSecsSinceEpoch() - 3'600'000;

// A chart of the size matplotlib draws, as a PNG in base64.
std::string chartPng(int width = 640, int height = 480)
{
    QImage image(width, height, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setPen(QPen(QColor(0x1f, 0x77, 0xb4), 3));
    painter.drawLine(80, height - 60, width / 2, height / 2);
    painter.drawLine(width / 2, height / 2, width - 40, 40);
    painter.setPen(Qt::black);
    painter.drawRect(60, 30, width - 90, height - 80);
    painter.drawText(QRect(0, 4, width, 24), Qt::AlignCenter, QStringLiteral("squares"));
    painter.end();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes.toBase64().toStdString() + "\n"; // as Jupyter sends it
}

json execution(int count, std::string code, json results, json error = nullptr)
{
    json x = {{"language", "python"},          {"context", ""},
              {"execution_count", count},      {"code", std::move(code)},
              {"results", std::move(results)}, {"duration_ms", 240 * count}};
    if (!error.is_null()) x["error"] = std::move(error);
    return x;
}

// A session's executions as serve sends them, checked and bounded as the supervisor records them.
std::vector<json> sessionExecutions()
{
    std::vector<json> raw = {
        execution(
            1,
            "import pandas as pd\n"
            "df = pd.DataFrame({\"city\": [\"Bonn\", \"Ulm\", \"Kiel\"], "
            "\"people\": [330000, 126000, 246000]})\ndf",
            {{{"main", true},
              {"parts",
               {{{"mime", "text/plain"}, {"text", "   city  people\n0  Bonn  330000"}},
                {{"mime", "text/html"}, {"text", "<table><tr><th>city</th></tr></table>"}},
                {{"mime", "e2b/data"},
                 {"json",
                  {{"city", {"Bonn", "Ulm", "Kiel"}}, {"people", {330000, 126000, 246000}}}}}}}}}),
        execution(2,
                  "import matplotlib.pyplot as "
                  "plt\nplt.plot(df.people)\nplt.title(\"squares\")\nplt.show()",
                  {{{"main", false},
                    {"parts",
                     {{{"mime", "text/plain"}, {"text", "<Figure size 640x480 with 1 Axes>"}},
                      {{"mime", "image/png"}, {"base64", chartPng()}}}}}}),
        execution(
            3, "big = np.zeros((6000, 6000)); plt.imshow(big); plt.show()",
            {{{"parts",
               {{{"mime", "image/png"}, {"omitted", "too large to record"}, {"bytes", 9'400'000}},
                {{"mime", "text/plain"}, {"text", "<Figure size 6000x6000 with 1 Axes>"}}}}}}),
        execution(4, "df.people.sum() / 0", json::array(),
                  {{"name", "ZeroDivisionError"},
                   {"value", "division by zero"},
                   {"traceback", "Traceback (most recent call last):\n  Cell In[4], line 1\n    "
                                 "df.people.sum() / 0\nZeroDivisionError: division by zero"}}),
    };
    std::vector<json> out;
    for (const json& x : raw) {
        auto recorded = sb::recordedExecution(x);
        if (!recorded) qFatal("%s", recorded.error().describe().c_str());
        out.push_back(*recorded);
    }
    return out;
}

// Whatever layouts are waiting to run, and what they bring about, has run.
void settle()
{
    for (int i = 0; i < 3; ++i) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QCoreApplication::processEvents();
    }
}

template <typename T> T* only(QWidget* in, const char* name)
{
    const auto all = in->findChildren<T*>(QString::fromLatin1(name));
    return all.size() == 1 ? all.front() : nullptr;
}

} // namespace

class ResultsViewTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        installShotLanguage();
        QVERIFY(m_world.isValid());
        sb::SessionRecordInfo info;
        info.id = kSession.toStdString();
        info.command = {"sandbench-cli", "serve"};
        info.workspace = m_world.workspace().toStdString();
        info.startedNs = kStartMs * 1'000'000;
        auto writer = sb::RecordingWriter::start(sb::defaultRecordingsPath(), info);
        QVERIFY2(writer, writer ? "" : writer.error().describe().c_str());
        for (const json& x : sessionExecutions())
            writer.value()->event(sb::EventKind::CodeExecution, x);
        QVERIFY(!writer.value()->finish(0));

        std::atomic<qint64> now{0};
        sb::WriterOptions options;
        options.clock = [&now] { return now.load(); };
        info.id = kReplayed.toStdString();
        auto replayed = sb::RecordingWriter::start(sb::defaultRecordingsPath(), info, options);
        QVERIFY2(replayed, replayed ? "" : replayed.error().describe().c_str());
        replayed.value()->terminalOutput(">>> started\r\n");
        for (const json& x : sessionExecutions()) {
            now += 10 * kSecond;
            replayed.value()->event(sb::EventKind::CodeExecution, x);
        }
        now += 5 * kSecond;
        replayed.value()->terminalOutput(">>> done\r\n");
        QVERIFY(!replayed.value()->finish(0));
    }

    // Each execution in order: its code, then the chart as a picture, the DataFrame as a table,
    // the error in red; what was not recorded is said.
    void theViewShowsPicturesTablesAndErrors()
    {
        ResultsView view;
        QSignalSpy counts(&view, &ResultsView::countChanged);
        QCOMPARE(view.summary()->text(),
                 ResultsView::tr("No code ran in this session's code interpreter."));
        for (const json& x : sessionExecutions())
            view.addEvent(x);
        view.addEvent({{"kind", "network"}, {"host", "x"}}); // not an execution: no change
        QCOMPARE(view.count(), 4);
        QCOMPARE(counts.last().at(0).toInt(), 4);
        const auto blocks = view.executions();
        QCOMPARE(blocks.size(), 4);

        // 1: the code, and the DataFrame as a table (not its text or HTML).
        auto* code = only<QPlainTextEdit>(blocks[0], "ExecutionCode");
        QVERIFY(code);
        QVERIFY(code->toPlainText().startsWith(QLatin1String("import pandas as pd")));
        auto* table = only<QTableWidget>(blocks[0], "ResultTable");
        QVERIFY(table);
        QCOMPARE(table->columnCount(), 2);
        QCOMPARE(table->rowCount(), 3);
        QCOMPARE(table->horizontalHeaderItem(0)->text(), QStringLiteral("city"));
        QCOMPARE(table->item(1, 0)->text(), QStringLiteral("Ulm"));
        QCOMPARE(table->item(2, 1)->text(), QStringLiteral("246000"));
        QVERIFY(blocks[0]->findChildren<QLabel*>(QStringLiteral("ResultImage")).isEmpty());

        // 2: the chart as the picture it is.
        auto* image = only<QLabel>(blocks[1], "ResultImage");
        QVERIFY(image);
        QCOMPARE(image->property("mime").toString(), QStringLiteral("image/png"));
        const QPixmap pixmap = image->pixmap();
        QVERIFY(!pixmap.isNull());
        QCOMPARE(pixmap.deviceIndependentSize().toSize(), QSize(640, 480));
        QCOMPARE(pixmap.toImage().pixelColor(320, 240).rgb(), QColor(0x1f, 0x77, 0xb4).rgb());

        // 3: the picture too large to record is said, and its text stands in.
        const auto notes = blocks[2]->findChildren<QLabel*>(QStringLiteral("ResultNote"));
        QCOMPARE(notes.size(), 1);
        QVERIFY2(notes[0]->text().contains(QLatin1String("image/png")) &&
                     notes[0]->text().contains(QLatin1String("too large to record")),
                 qPrintable(notes[0]->text()));
        auto* text = only<QPlainTextEdit>(blocks[2], "ResultText");
        QVERIFY(text);
        QCOMPARE(text->toPlainText(), QStringLiteral("<Figure size 6000x6000 with 1 Axes>"));

        // 4: the error in red, with its traceback.
        auto* error = only<QLabel>(blocks[3], "ExecutionError");
        QVERIFY(error);
        QCOMPARE(error->text(), QStringLiteral("ZeroDivisionError: division by zero"));
        QCOMPARE(error->palette().color(QPalette::WindowText), QColor(0xb3, 0x26, 0x1e));
        auto* trace = only<QPlainTextEdit>(blocks[3], "ExecutionTraceback");
        QVERIFY(trace);
        QVERIFY(trace->toPlainText().contains(QLatin1String("Cell In[4], line 1")));

        view.clear();
        QCOMPARE(view.count(), 0);
        QVERIFY(view.executions().isEmpty());
        QCOMPARE(counts.last().at(0).toInt(), 0);
    }

    // An SVG is drawn; one that names a file outside itself is not (it is said instead).
    void svgIsDrawnUnlessItNamesOtherFiles()
    {
        const std::string svg = "<svg xmlns='http://www.w3.org/2000/svg' width='120' height='80'>"
                                "<rect width='120' height='80' fill='#2ca02c'/></svg>";
        QImage drawn = sbui::resultImage({{"mime", "image/svg+xml"}, {"text", svg}});
        QCOMPARE(drawn.size(), QSize(120, 80));
        QCOMPARE(drawn.pixelColor(60, 40).rgb(), QColor(0x2c, 0xa0, 0x2c).rgb());
        const std::string outside =
            "<svg xmlns='http://www.w3.org/2000/svg' xmlns:xlink='http://www.w3.org/1999/xlink'>"
            "<image xlink:href='file:///etc/hostname' width='10' height='10'/></svg>";
        QVERIFY(sbui::resultImage({{"mime", "image/svg+xml"}, {"text", outside}}).isNull());
        std::unique_ptr<QWidget> shown(
            sbui::resultWidget({{"parts", {{{"mime", "image/svg+xml"}, {"text", outside}}}}}));
        QCOMPARE(shown->findChildren<QLabel*>(QStringLiteral("ResultImage")).size(), 0);
        QCOMPARE(shown->findChildren<QLabel*>(QStringLiteral("ResultNote")).size(), 1);
    }

    // An ended session's recording fills the tab, which only a session that ran code has; the
    // timeline says what ran in one line.
    void aRecordedSessionShowsItsResults()
    {
        sbui::MainWindow window;
        window.show();
        QVERIFY(window.selectSession(kSession));
        QCOMPARE(window.results()->count(), 4);
        const int tab = window.tabs()->indexOf(window.results());
        QVERIFY(tab >= 0);
        QVERIFY(window.tabs()->isTabVisible(tab));
        QCOMPARE(window.tabs()->tabText(tab),
                 QCoreApplication::translate("sbui::MainWindow", "Results (%1)").arg(4));
        window.tabs()->setCurrentWidget(window.results());
        QVERIFY(!window.results()
                     ->executions()[1]
                     ->findChildren<QLabel*>(QStringLiteral("ResultImage"))
                     .isEmpty());

        auto* model = window.activity()->model();
        model->flush();
        int rows = 0;
        for (int row = 0; row < model->rowCount(); ++row) {
            const QString name = model
                                     ->data(model->index(row, sbui::ActivityModel::KindColumn),
                                            sbui::ActivityModel::KindNameRole)
                                     .toString();
            if (name != QLatin1String("execution")) continue;
            ++rows;
            const QString summary =
                model->data(model->index(row, sbui::ActivityModel::SummaryColumn)).toString();
            QVERIFY2(!summary.contains(QLatin1String("base64")), qPrintable(summary.left(200)));
            // Its details name the results' types, not their bytes.
            const QString details = model->detailsText(row);
            QVERIFY2(details.size() < 4000, qPrintable(details.left(400)));
        }
        QCOMPARE(rows, 4);
        // From the table and the chart, for the screenshots.
        window.results()->scrollToExecution(0);
        screenshot(window, QStringLiteral("results"));

        window.results()->clear();
        QVERIFY(!window.tabs()->isTabVisible(tab));
    }

    // While the session is replayed the tab shows what had run at the position, the rest dimmed
    // and said not to have run yet; the last one reached comes into view; a click on one goes
    // there in the replay; a closed replay leaves all of them shown as run.
    void theTabFollowsTheReplay()
    {
        sbui::MainWindow window;
        window.resize(1024, 700);
        window.show();
        QVERIFY(window.selectSession(kReplayed));
        ResultsView* results = window.results();
        sbui::ReplayView* replay = window.replay();
        QCOMPARE(results->count(), 4);
        QVERIFY(!results->reached());
        const int tab = window.tabs()->indexOf(results);
        auto tabText = [&](int reached) {
            return QCoreApplication::translate("sbui::MainWindow", "Results (%1/%2)")
                .arg(reached)
                .arg(4);
        };
        auto summaryAt = [](int reached, qint64 ns) {
            return ResultsView::tr("%1 of %n execution(s) had run at %2 of the replay.", nullptr, 4)
                .arg(reached)
                .arg(sbui::formatReplayTime(ns));
        };
        auto block = [&](int i) {
            return qobject_cast<sbui::ExecutionBlock*>(results->executions()[i]);
        };
        auto pending = [&] {
            QList<bool> out;
            for (int i = 0; i < results->count(); ++i)
                out << block(i)->isPending();
            return out;
        };

        window.tabs()->setCurrentWidget(replay); // opens the replay, at its start
        QVERIFY(replay->controller()->isOpen());
        QCOMPARE(results->reached(), std::optional<int>(0));
        QCOMPARE(pending(), (QList<bool>{true, true, true, true}));

        // Between the first execution and the second: the first as it ran, the others not yet.
        replay->seek(15 * kSecond);
        QCOMPARE(results->reached(), std::optional<int>(1));
        QCOMPARE(pending(), (QList<bool>{false, true, true, true}));
        QCOMPARE(results->summary()->text(), summaryAt(1, 15 * kSecond));
        QCOMPARE(window.tabs()->tabText(tab), tabText(1));
        window.tabs()->setCurrentWidget(results);
        QVERIFY(only<QTableWidget>(block(0), "ResultTable")->isVisible());
        auto* notYet = only<QLabel>(block(1), "ExecutionNotYet");
        QVERIFY(notYet && notYet->isVisible());
        QCOMPARE(notYet->text(),
                 sbui::ExecutionBlock::tr("Not yet run at this point of the replay."));
        QVERIFY(!only<QLabel>(block(0), "ExecutionNotYet")->isVisible());
        QVERIFY(!only<QPlainTextEdit>(block(1), "ExecutionCode")->isVisible());
        QVERIFY(!only<QLabel>(block(1), "ResultImage")->isVisible()); // the chart is ahead
        QVERIFY(only<QLabel>(block(1), "ExecutionTitle")->isVisible());
        screenshot(window, QStringLiteral("results-replay"));

        // At the end all had run, and the last one reached, the error below the chart, is in
        // view.
        window.resize(1024, 700);
        QScrollBar* bar = results->findChild<QScrollArea*>()->verticalScrollBar();
        QWidget* viewport = results->findChild<QScrollArea*>()->viewport();
        replay->seek(replay->durationNs());
        QCOMPARE(results->reached(), std::optional<int>(4));
        QCOMPARE(pending(), (QList<bool>{false, false, false, false}));
        QCOMPARE(results->summary()->text(), summaryAt(4, replay->durationNs()));
        auto inView = [&](int i) {
            const int top = block(i)->mapTo(viewport, QPoint(0, 0)).y();
            return top >= 0 && top < viewport->height();
        };
        QTRY_VERIFY(bar->value() > 0 && inView(3));
        settle();
        QVERIFY(bar->value() > 0 && inView(3));
        // A position that reaches no other execution leaves the view where the reader put it.
        bar->setValue(0);
        replay->seek(replay->durationNs() - kSecond / 2);
        settle();
        QCOMPARE(bar->value(), 0);

        // A click on an execution goes to its time in the replay; its tooltip says so.
        QVERIFY(!block(2)->toolTip().isEmpty());
        QCOMPARE(block(2)->cursor().shape(), Qt::PointingHandCursor);
        replay->seek(0);
        QTest::mouseClick(only<QLabel>(block(2), "ExecutionTitle"), Qt::LeftButton);
        QCOMPARE(replay->positionNs(), 30 * kSecond);
        QCOMPARE(results->reached(), std::optional<int>(3));
        QCOMPARE(pending(), (QList<bool>{false, false, false, true}));
        // The replay stays there when looked at again.
        window.tabs()->setCurrentWidget(replay);
        QCOMPARE(replay->positionNs(), 30 * kSecond);
        window.tabs()->setCurrentWidget(results);
        // The keyboard does the same: an execution takes the focus, Enter goes to its time.
        QCOMPARE(block(1)->focusPolicy(), Qt::StrongFocus);
        block(1)->setFocus();
        QTest::keyClick(block(1), Qt::Key_Return);
        QCOMPARE(replay->positionNs(), 20 * kSecond);
        QCOMPARE(results->reached(), std::optional<int>(2));
        // Where the keyboard is shows (the window active, as a person's would be).
        window.activateWindow();
        if (QTest::qWaitForWindowActive(&window)) {
            block(1)->setFocus(Qt::TabFocusReason);
            QVERIFY(block(1)->hasFocus());
            screenshot(window, QStringLiteral("results-replay-focus"));
        }

        // Closed, the replay leaves all shown as run, and a click goes nowhere.
        replay->close();
        QVERIFY(!results->reached());
        QCOMPARE(pending(), (QList<bool>{false, false, false, false}));
        QCOMPARE(results->summary()->text(),
                 ResultsView::tr("%n execution(s) of code, in the order they ran.", nullptr, 4));
        QCOMPARE(window.tabs()->tabText(tab),
                 QCoreApplication::translate("sbui::MainWindow", "Results (%1)").arg(4));
        QSignalSpy activated(results, &ResultsView::executionActivated);
        QTest::mouseClick(only<QLabel>(block(1), "ExecutionTitle"), Qt::LeftButton);
        QTest::keyClick(block(1), Qt::Key_Return);
        QCOMPARE(activated.size(), 0);
        QVERIFY(block(1)->toolTip().isEmpty());
        QCOMPARE(block(1)->focusPolicy(), Qt::NoFocus);
    }

    // A running session's executions come as they are recorded: serve's execution_record
    // reaches the window through the session's activity events.
    void aLiveSessionShowsResultsAsTheyCome()
    {
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
        QString error;
        auto session = HeadlessSession::start(
            m_world, QStringLiteral("results-live"),
            {QStringLiteral("--network"), QStringLiteral("none")},
            {QStringLiteral("bash"), QStringLiteral("-c"), QStringLiteral("echo ready; sleep 600")},
            &error);
        QVERIFY2(session, qPrintable(error));
        sbui::MainWindow window;
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(window.hub()->isLive(session->id()), 20000);
        QVERIFY(window.selectSession(session->id()));
        // Its output reached the window: it is subscribed.
        QTRY_VERIFY_WITH_TIMEOUT(window.terminal()->screenText().contains(QLatin1String("ready")),
                                 20000);
        const int tab = window.tabs()->indexOf(window.results());
        QVERIFY(!window.tabs()->isTabVisible(tab));

        auto serve = sb::ControlClient::connect(session->id().toStdString(), "serve-test",
                                                sb::proto::Role::Viewer);
        QVERIFY2(serve, serve ? "" : serve.error().describe().c_str());
        json x = sessionExecutions()[1]; // the chart, as serve sends it
        for (const char* recordedOnly : {"kind", "by", "time_unix_ms"})
            x.erase(recordedOnly);
        for (json& result : x["results"])
            for (json& part : result["parts"])
                part.erase("bytes");
        QVERIFY(!(*serve)->send(sb::proto::jsonMessage(sb::proto::MsgType::ExecutionRecord,
                                                       {{"id", 1}, {"execution", x}})));
        bool answered = false;
        for (int i = 0; i < 200 && !answered; ++i)
            if (auto m = (*serve)->receive(100))
                answered = m->type == sb::proto::MsgType::ExecutionRecorded;
        QVERIFY(answered);
        QTRY_COMPARE_WITH_TIMEOUT(window.results()->count(), 1, 20000);
        QVERIFY(window.tabs()->isTabVisible(tab));
        auto* image =
            window.results()->executions()[0]->findChild<QLabel*>(QStringLiteral("ResultImage"));
        QVERIFY(image);
        QCOMPARE(image->pixmap().deviceIndependentSize().toSize(), QSize(640, 480));
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(ResultsViewTest)
#include "ResultsViewTest.moc"
