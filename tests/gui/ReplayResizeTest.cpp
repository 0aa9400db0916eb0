// Replay of a recording whose terminal was resized at its start, as the demo's was (80 → 141 →
// 102 → 93 columns in 0.3 s), then idle for seconds (issue 37, item 9): seeking shows the lines
// whole, as playing does, and the view says it shortens the pause and can play it in real time.
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "activity/ActivityView.h"
#include "recording/RecordingStore.h"
#include "recording/RecordingWriter.h"
#include "replay/ReplayController.h"
#include "replay/ReplayView.h"
#include "terminal/TerminalWidget.h"

#include <QCheckBox>
#include <QLabel>
#include <QStandardPaths>
#include <QTest>
#include <QVBoxLayout>
#include <atomic>

using namespace sbgt;
using sbui::ReplayView;

namespace {

const QString kSession = QStringLiteral("resized-demo");
const std::string kSentence =
    "(When an approval is left unanswered, it is denied after the policy's timeout; nothing "
    "leaves the sandbox.)";
constexpr qint64 kMs = 1'000'000;

// The terminal's text with its rows joined: a line is found whole wherever it wraps.
QString joined(ReplayView& view)
{
    return view.terminal()->screenText().remove(u'\n');
}

} // namespace

class ReplayResizeTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        installShotLanguage();
        QVERIFY(m_world.isValid());
        // Recorded on a clock of the test's: output at 141 columns, three resizes in 0.3 s,
        // a prompt, 5 s of nothing, a last line.
        std::atomic<std::int64_t> now{0};
        sb::WriterOptions options;
        options.clock = [&now] { return now.load(); };
        sb::SessionRecordInfo info;
        info.id = kSession.toStdString();
        info.command = {"bash", "demo.sh"};
        info.workspace = m_world.workspace().toStdString();
        info.rows = 24;
        info.cols = 80;
        auto writer = sb::RecordingWriter::start(sb::defaultRecordingsPath(), info, options);
        QVERIFY2(writer, writer ? "" : writer.error().describe().c_str());
        now = 10 * kMs;
        writer.value()->resize(24, 141);
        now = 20 * kMs;
        writer.value()->terminalOutput("[agent] starting\r\n" + kSentence + "\r\n");
        now = 150 * kMs;
        writer.value()->resize(24, 102);
        now = 300 * kMs;
        writer.value()->resize(24, 93);
        now = 400 * kMs;
        writer.value()->terminalOutput("$ ");
        now = 5400 * kMs;
        writer.value()->terminalOutput("after the pause\r\n");
        now = 5500 * kMs;
        QVERIFY(!writer.value()->finish(0));
    }

    void init()
    {
        m_window = std::make_unique<QWidget>();
        auto* column = new QVBoxLayout(m_window.get());
        m_timeline = new sbui::ActivityView;
        m_view = new ReplayView(m_timeline);
        column->addWidget(m_view, 1);
        column->addWidget(m_timeline);
        m_window->resize(1200, 900);
        m_window->show();
        QString error;
        QVERIFY2(m_view->open(kSession, &error), qPrintable(error));
        m_view->controller()->setAutoAdvance(false);
    }

    void cleanup() { m_window.reset(); }

    // The scrubber at 20 %: the screen rebuilt through the resizes keeps the sentence whole, as
    // playing to the same place shows it.
    void seekingThroughResizesKeepsWholeLines()
    {
        const qint64 at = m_view->durationNs() / 5;
        QVERIFY(at > 300 * kMs);
        m_view->seek(at);
        QCOMPARE(m_view->terminal()->columns(), 93);
        QVERIFY2(joined(*m_view).contains(QString::fromStdString(kSentence)),
                 qPrintable(m_view->terminal()->screenText()));
        const QString seeked = m_view->terminal()->screenText();

        m_view->seek(0);
        m_view->play();
        m_view->controller()->step(at / kMs);
        m_view->pause();
        QCOMPARE(m_view->positionNs(), at);
        QCOMPARE(m_view->terminal()->screenText(), seeked);
    }

    // Said beside the speed; with Real time the 5 s pause plays as 5 s.
    void pausesAreShortenedUnlessRealTime()
    {
        QVERIFY(!m_view->realTimeBox()->isChecked());
        QVERIFY(m_view->idleNote()->isVisible());
        QVERIFY(m_view->idleNote()->text().contains(QLatin1String("2 s")));
        m_view->play();
        m_view->controller()->step(2500); // 0.4 s of output, then the pause cut to 2 s
        QVERIFY(joined(*m_view).contains(QLatin1String("after the pause")));
        m_view->pause();

        m_view->seek(0);
        QTest::mouseClick(m_view->realTimeBox(), Qt::LeftButton);
        QVERIFY(m_view->realTimeBox()->isChecked());
        QVERIFY(m_view->controller()->realTime());
        QVERIFY(!m_view->idleNote()->isVisible());
        m_view->play();
        m_view->controller()->step(2500);
        QCOMPARE(m_view->positionNs(), 2500 * kMs);
        QVERIFY(!joined(*m_view).contains(QLatin1String("after the pause")));
        m_view->controller()->step(3000);
        QVERIFY(joined(*m_view).contains(QLatin1String("after the pause")));
    }

    // The replay after a seek, with the note about pauses and Real time beside the speed.
    void screenshots()
    {
        m_view->seek(m_view->durationNs() / 5);
        screenshot(*m_window, QStringLiteral("replay-seek-after-resizes"));
    }

  private:
    TestWorld m_world;
    std::unique_ptr<QWidget> m_window;
    sbui::ActivityView* m_timeline = nullptr;
    ReplayView* m_view = nullptr;
};

QTEST_MAIN(ReplayResizeTest)
#include "ReplayResizeTest.moc"
