// The window's view of a session's model requests and attempted leaks (issue 38): the Models
// tab's totals, estimate, chart and rows per model, the red banner over the tabs, and the
// timeline's rows for "model" and "leak" events; fed from a recording, as for an ended session.
// Screenshots in German: run aRecordedSessionShowsItsModelUseAndItsLeak alone (the other
// compares English texts).
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "activity/ActivityModel.h"
#include "activity/ActivityView.h"
#include "base/ActivityKinds.h"
#include "main/MainWindow.h"
#include "models/LeakBanner.h"
#include "models/ModelUsageView.h"
#include "models/TokenChart.h"
#include "recording/RecordingStore.h"
#include "recording/RecordingWriter.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDockWidget>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QTreeWidget>
#include <atomic>

using namespace sbgt;
using nlohmann::json;
using sbui::ModelUsageView;

namespace {

const QString kSession = QStringLiteral("models-recorded");
// An hour ago: recordings older than the retention limit go when the window starts.
const qint64 kStartMs = QDateTime::currentMSecsSinceEpoch() - 3'600'000;

json modelRequest(const char* model, qint64 atMs, std::uint64_t in, std::uint64_t out,
                  std::uint64_t read, std::uint64_t write)
{
    return {{"kind", sb::activity::kModel},
            {"host", "api.anthropic.com"},
            {"port", 443},
            {"api", "anthropic-messages"},
            {"model", model},
            {"status", 200},
            {"input_tokens", in},
            {"output_tokens", out},
            {"cache_read_tokens", read},
            {"cache_write_tokens", write},
            {"streamed", true},
            {"duration_ms", 2400},
            {"connection", 3},
            {"command_id", 1},
            {"time_unix_ms", kStartMs + atMs}};
}

json leak(qint64 atMs)
{
    return {{"kind", sb::activity::kLeak},
            {"secret", "ANTHROPIC_API_KEY"},
            {"host", "gist.github.com"},
            {"port", 443},
            {"protocol", "https"},
            {"where", "body"},
            {"process", json::array({{{"pid", 12}, {"program", "/usr/bin/curl"}}})},
            {"command_id", 2},
            {"connection", 4},
            {"time_unix_ms", kStartMs + atMs}};
}

// A session of twenty requests over ten minutes, to two models (one the price table does not
// name), and one attempted leak half way.
std::vector<json> sessionEvents()
{
    std::vector<json> events;
    for (int i = 0; i < 20; ++i) {
        const std::uint64_t n = static_cast<std::uint64_t>(i);
        events.push_back(i % 5 == 4
                             ? modelRequest("local-llama", 30000 * i, 800, 150, 0, 0)
                             : modelRequest("claude-sonnet-4-5-20250929", 30000 * i, 1200 + 10 * n,
                                            300 + 40 * n, 20000 * (n + 1), i == 0 ? 18000 : 900));
        if (i == 10) events.push_back(leak(30000 * i + 5000));
    }
    return events;
}

} // namespace

class ModelUsageTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        installShotLanguage();
        QVERIFY(m_world.isValid());
        // Recorded on a clock of the test's: the events at their times since the start.
        std::atomic<std::int64_t> now{0};
        sb::WriterOptions options;
        options.clock = [&now] { return now.load(); };
        sb::SessionRecordInfo info;
        info.id = kSession.toStdString();
        info.command = {"claude", "-p", "fix the tests"};
        info.workspace = m_world.workspace().toStdString();
        info.startedNs = kStartMs * 1'000'000;
        auto writer = sb::RecordingWriter::start(sb::defaultRecordingsPath(), info, options);
        QVERIFY2(writer, writer ? "" : writer.error().describe().c_str());
        for (json event : sessionEvents()) {
            now = (event["time_unix_ms"].get<qint64>() - kStartMs) * 1'000'000;
            const bool isLeak = event["kind"] == sb::activity::kLeak;
            event.erase("time_unix_ms"); // the recording's own clock places it
            writer.value()->event(isLeak ? sb::EventKind::SecretLeak : sb::EventKind::ModelRequest,
                                  event);
        }
        now = 620LL * 1000 * 1'000'000;
        QVERIFY(!writer.value()->finish(0));
    }

    // Totals, an estimate of the priced model only, a row per model, a rising chart; the leak
    // in red at the top.
    void theViewTotalsTheRequests()
    {
        ModelUsageView view;
        QSignalSpy counts(&view, &ModelUsageView::countsChanged);
        view.setSessionStart(kStartMs);
        QVERIFY(view.leaksLabel()->isHidden());
        QVERIFY(view.summary()->text().startsWith(QLatin1String("No model requests")));
        for (const json& event : sessionEvents())
            view.addEvent(event);
        view.addEvent({{"kind", "network"}, {"host", "x"}}); // not a model request: no change

        const auto& total = view.totals().total();
        QCOMPARE(total.requests, 20u);
        QCOMPARE(view.table()->topLevelItemCount(), 2);
        QCOMPARE(view.table()->topLevelItem(0)->text(ModelUsageView::ModelColumn),
                 QStringLiteral("claude-sonnet-4-5-20250929"));
        QCOMPARE(view.table()->topLevelItem(0)->text(ModelUsageView::RequestsColumn),
                 QStringLiteral("16"));
        QCOMPARE(view.table()->topLevelItem(1)->text(ModelUsageView::CostColumn),
                 QStringLiteral("no price"));
        QVERIFY(view.table()->topLevelItem(0)->text(ModelUsageView::CostColumn).startsWith(u'$'));
        QVERIFY2(view.summary()->text().contains(QLatin1String("20 model request")),
                 qPrintable(view.summary()->text()));
        QVERIFY2(view.summary()->text().contains(QLatin1String("Estimated cost: $")) &&
                     view.summary()->text().contains(QLatin1String("models without a price")),
                 qPrintable(view.summary()->text()));

        QCOMPARE(view.chart()->points().size(), std::size_t{20});
        const auto& last = view.chart()->points().back();
        QCOMPARE(last.input, total.input + total.cacheRead + total.cacheWrite);
        QCOMPARE(last.output, total.output);
        QVERIFY(view.chart()->axisMaximum() >= last.input);
        QVERIFY(view.chart()->outputAxisMaximum() >= last.output);
        QVERIFY(view.chart()->outputAxisMaximum() < view.chart()->axisMaximum());

        QVERIFY(!view.leaksLabel()->isHidden());
        QVERIFY2(view.leaksLabel()->text().contains(QLatin1String(
                     "ANTHROPIC_API_KEY to gist.github.com:443 (in the body, by curl)")),
                 qPrintable(view.leaksLabel()->text()));
        QVERIFY(!counts.isEmpty());
        QCOMPARE(counts.last().at(0).toInt(), 20);
        QCOMPARE(counts.last().at(1).toInt(), 1);

        view.clear();
        QCOMPARE(view.totals().total().requests, 0u);
        QVERIFY(view.leaksLabel()->isHidden());
        QVERIFY(view.chart()->points().empty());
    }

    // An ended session's recording fills the Models tab, the banner over the tabs and the
    // timeline's rows.
    void aRecordedSessionShowsItsModelUseAndItsLeak()
    {
        sbui::MainWindow window;
        window.show();
        QVERIFY(window.selectSession(kSession));
        QCOMPARE(window.models()->totals().total().requests, 20u);
        QVERIFY(window.leakBanner()->isVisible());
        QVERIFY2(window.leakBanner()->label()->text().contains(QLatin1String("ANTHROPIC_API_KEY")),
                 qPrintable(window.leakBanner()->label()->text()));
        const int tab = window.tabs()->indexOf(window.models());
        QVERIFY(tab >= 0);
        QVERIFY2(window.tabs()->tabText(tab) == QCoreApplication::translate("sbui::MainWindow",
                                                                            "Models (%n leak(s)!)",
                                                                            nullptr, 1),
                 qPrintable(window.tabs()->tabText(tab)));

        // The banner's link opens the tab.
        Q_EMIT window.leakBanner()->detailsRequested();
        QCOMPARE(window.tabs()->currentWidget(), window.models());

        // The timeline: a row per request, and the leak as a refused network row.
        auto* model = window.activity()->model();
        model->flush(); // queued rows become rows
        int models = 0, leaks = 0;
        for (int row = 0; row < model->rowCount(); ++row) {
            const QModelIndex kind = model->index(row, sbui::ActivityModel::KindColumn);
            const QString name = model->data(kind, sbui::ActivityModel::KindNameRole).toString();
            const QString summary =
                model->data(model->index(row, sbui::ActivityModel::SummaryColumn)).toString();
            if (name == QLatin1String("model")) {
                ++models;
                QVERIFY2(summary.contains(QLatin1String("claude-sonnet-4-5-20250929")) ||
                             summary.contains(QLatin1String("local-llama")),
                         qPrintable(summary));
                QVERIFY2(summary.contains(QLatin1String("api.anthropic.com:443")),
                         qPrintable(summary));
            } else if (name == QLatin1String("leak")) {
                ++leaks;
                QVERIFY2(summary.contains(QLatin1String("ANTHROPIC_API_KEY")) &&
                             summary.contains(QLatin1String("gist.github.com:443")),
                         qPrintable(summary));
                QVERIFY(model->data(kind, sbui::ActivityModel::RefusedRole).toBool());
            }
        }
        QCOMPARE(models, 20);
        QCOMPARE(leaks, 1);
        screenshot(window, QStringLiteral("models"));

        QVERIFY(window.tabs()->isTabVisible(tab));
        // Another session without any: the banner and the tab go.
        window.models()->clear();
        QVERIFY(!window.leakBanner()->isVisible());
        QVERIFY(!window.tabs()->isTabVisible(tab));
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(ModelUsageTest)
#include "ModelUsageTest.moc"
