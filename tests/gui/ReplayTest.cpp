// Replay of a real recorded session (numbered lines with pauses, a scrolled screen, a clear, a
// command denied by the policy, an approval that timed out, a pause longer than 2 s): the screen
// at any time equals the recorded output fed to a fresh ScreenModel, seeking both ways, playback
// with its speed and capped pauses, events, search, jump to a time and export.
#include "GuiTestSupport.h"
#include "activity/ActivityFilterModel.h"
#include "activity/ActivityModel.h"
#include "activity/ActivityView.h"
#include "recording/RecordingStore.h"
#include "recording/ScreenModel.h"
#include "replay/ReplayController.h"
#include "replay/ReplayScrubber.h"
#include "replay/ReplayTime.h"
#include "replay/ReplayView.h"
#include "terminal/TerminalWidget.h"

#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

using namespace sbgt;
using sbui::ReplayScrubber;
using sbui::ReplayView;

namespace {

const QString kSession = QStringLiteral("replay-lines");

// rm is denied by a rule; touch waits for an approval nobody gives and is denied after 1 s.
const QByteArray kPolicy = R"({
  "version": 1,
  "network": {"mode": "none"},
  "commands": {"default": "allow", "rules": [{"action": "deny", "match": "rm *"},
                                              {"action": "ask", "match": "touch *"}]},
  "approvals": {"timeout_seconds": 1, "on_timeout": "deny"}
})";

const QString kScript = QStringLiteral(
    "seq 1 30; for i in 1 2 3 4 5; do echo line$i; sleep 0.3; done; "
    "printf '\\033[H\\033[2J\\033[31mcleared\\033[0m\\n'; rm -f gone.txt; echo rm=$?; "
    "touch held.txt; echo touch=$?; sleep 2.6; echo after-pause");

constexpr qint64 kMs = 1'000'000;
constexpr qint64 kPauseCapNs = 2'000 * kMs;

// Screens compare line by line, trailing blanks and empty last lines aside.
QString normalized(const QString& screen)
{
    QStringList lines = screen.split(u'\n');
    for (QString& line : lines)
        while (line.endsWith(u' '))
            line.chop(1);
    while (!lines.isEmpty() && lines.back().isEmpty())
        lines.pop_back();
    return lines.join(u'\n');
}

struct Recorded {
    unsigned rows = 24, cols = 80;
    std::vector<sb::RecordedEvent> terminal; // output and resizes, in order
    qint64 durationNs = 0;
};

Recorded readRecording(const QString& id)
{
    Recorded out;
    auto store = sb::RecordingStore::open();
    if (!store) return out;
    auto record = store->session(id.toStdString());
    if (!record) return out;
    out.rows = record->rows;
    out.cols = record->cols;
    out.durationNs = record->lastEventNs;
    store->forEachEvent(id.toStdString(), 0, INT64_MAX, [&](const sb::RecordedEvent& e) {
        if (e.kind == sb::EventKind::Output || e.kind == sb::EventKind::Resize)
            out.terminal.push_back(e);
        return true;
    });
    return out;
}

// The screen at `tNs` built the slow, obvious way: every output byte up to then, from the start.
QString referenceScreen(const Recorded& rec, qint64 tNs)
{
    sb::ScreenModel screen(rec.rows, rec.cols);
    for (const sb::RecordedEvent& e : rec.terminal) {
        if (e.tNs > tNs) break;
        if (e.kind == sb::EventKind::Output) {
            screen.feed(e.data);
        } else {
            auto size = nlohmann::json::parse(e.data);
            screen.resize(size["rows"].get<unsigned>(), size["cols"].get<unsigned>());
        }
    }
    return normalized(QString::fromStdString(screen.text()));
}

QString shown(ReplayView& view)
{
    return normalized(view.terminal()->screenText());
}

// Wall time a replay at 1x takes: every gap between output events (and to the end) at most 2 s.
qint64 cappedLengthNs(const Recorded& rec)
{
    qint64 total = 0, previous = 0;
    for (const sb::RecordedEvent& e : rec.terminal) {
        total += std::min(e.tNs - previous, kPauseCapNs);
        previous = e.tNs;
    }
    return total + std::min(rec.durationNs - previous, kPauseCapNs);
}

QStringList readLines(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    QStringList lines = QString::fromUtf8(file.readAll()).split(u'\n');
    while (!lines.isEmpty() && lines.back().isEmpty())
        lines.pop_back();
    return lines;
}

} // namespace

class ReplayTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
        QString error;
        auto session = HeadlessSession::start(
            m_world, kSession, {QStringLiteral("--policy"), m_world.writePolicy(kPolicy)},
            {QStringLiteral("bash"), QStringLiteral("-c"), kScript}, &error);
        QVERIFY2(session, qPrintable(error));
        QCOMPARE(session->waitForExit(60000), 0);
        m_rec = readRecording(kSession);
        QVERIFY2(m_rec.terminal.size() >= 8, "the session's output was not recorded");
        QVERIFY(m_rec.durationNs > 4'000 * kMs);
    }

    // As in the window: the replay above, the timeline it follows below.
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

    void opensAtTheStartWithTheRecordingsSize()
    {
        QCOMPARE(m_view->positionNs(), 0);
        QCOMPARE(m_view->durationNs(), m_rec.durationNs);
        QCOMPARE(m_view->terminal()->rows(), 24);
        QCOMPARE(m_view->terminal()->columns(), 80);
        QVERIFY(m_view->terminal()->isReadOnly());
        // The pane is as wide as the recording's 80 columns, also when that is over half the view
        // and a cell is a fraction of a pixel wider than its rounded size.
        QFont font(QStringLiteral("DejaVu Sans Mono"));
        font.setPointSizeF(10.5);
        m_view->terminal()->setTerminalFont(font);
        m_window->resize(1000, 900);
        QTRY_VERIFY(m_view->terminal()->cellRect(0, 79).right() <
                    m_view->terminal()->viewport()->width());
        QCOMPARE(shown(*m_view), referenceScreen(m_rec, 0));
        QVERIFY(!m_view->controller()->isPlaying());
    }

    void unknownSessionDoesNotOpen()
    {
        sbui::ActivityView timeline;
        ReplayView view(&timeline);
        QString error;
        QVERIFY(!view.open(QStringLiteral("no-such-session"), &error));
        QVERIFY2(error.contains(QLatin1String("no-such-session")), qPrintable(error));
    }

    // Just before and at every output event, and between: the screen rebuilt from keyframes is
    // the screen the bytes make.
    void seekShowsTheScreenOfThatTime()
    {
        std::set<QString> distinct;
        std::vector<qint64> times{0, m_rec.durationNs / 2, m_rec.durationNs};
        for (const sb::RecordedEvent& e : m_rec.terminal) {
            times.push_back(e.tNs);
            times.push_back(std::max<qint64>(0, e.tNs - 1));
            times.push_back(e.tNs + 50 * kMs);
        }
        for (qint64 t : times) {
            m_view->seek(t);
            QCOMPARE(m_view->positionNs(), std::min(t, m_rec.durationNs));
            const QString expected = referenceScreen(m_rec, m_view->positionNs());
            QCOMPARE(shown(*m_view), expected);
            distinct.insert(expected);
        }
        // The times above saw the screen change (the comparison was not of blank screens).
        QVERIFY(distinct.size() >= 8);
    }

    void seekingBackwards()
    {
        m_view->seek(m_rec.durationNs);
        QVERIFY(shown(*m_view).contains(QLatin1String("after-pause")));
        QVERIFY(!shown(*m_view).contains(QLatin1String("line2")));
        const qint64 line2 = outputTime("line2");
        QVERIFY(line2 > 0);
        m_view->seek(line2);
        QCOMPARE(shown(*m_view), referenceScreen(m_rec, line2));
        QVERIFY(shown(*m_view).contains(QLatin1String("line2")));
        QVERIFY(!shown(*m_view).contains(QLatin1String("line3")));
        QVERIFY(!shown(*m_view).contains(QLatin1String("cleared")));
        m_view->seek(line2 - 1);
        QVERIFY(!shown(*m_view).contains(QLatin1String("line2")));
        QCOMPARE(shown(*m_view), referenceScreen(m_rec, line2 - 1));
    }

    // At 1x in steps of 100 ms the screen is always the recorded one, a pause over 2 s lasts 2 s,
    // and the replay ends at the end.
    void playsInTimeWithLongPausesCut()
    {
        auto* controller = m_view->controller();
        QSignalSpy finished(controller, &sbui::ReplayController::finished);
        m_view->play();
        QVERIFY(controller->isPlaying());
        qint64 wall = 0;
        while (controller->isPlaying() && wall < 60'000) {
            controller->step(100);
            wall += 100;
            QCOMPARE(shown(*m_view), referenceScreen(m_rec, m_view->positionNs()));
        }
        QCOMPARE(finished.count(), 1);
        QCOMPARE(m_view->positionNs(), m_rec.durationNs);
        const qint64 expectedMs = cappedLengthNs(m_rec) / kMs;
        QVERIFY(expectedMs < m_rec.durationNs / kMs - 500); // the 2.6 s sleep was cut
        QVERIFY2(std::abs(wall - expectedMs) <= 100,
                 qPrintable(QStringLiteral("played %1 ms, expected %2").arg(wall).arg(expectedMs)));
    }

    void speedScalesPlayback()
    {
        auto* controller = m_view->controller();
        m_view->setSpeed(4);
        QCOMPARE(m_view->speedBox()->currentText(), QStringLiteral("4×"));
        m_view->play();
        controller->step(100); // 400 ms of recording, no pause of 2 s yet
        QCOMPARE(m_view->positionNs(), 400 * kMs);
        m_view->speedBox()->setCurrentIndex(0); // 0.25x, as the user picks it
        QCOMPARE(controller->speed(), 0.25);
        controller->step(400);
        QCOMPARE(m_view->positionNs(), 500 * kMs);
        m_view->pause();
        controller->step(1000);
        QCOMPARE(m_view->positionNs(), 500 * kMs);
        m_view->setSpeed(100);
        QCOMPARE(controller->speed(), 16.0);
    }

    // At 16x with the real timer: the replay reaches the end by itself.
    void playsToTheEndAt16x()
    {
        auto* controller = m_view->controller();
        controller->setAutoAdvance(true);
        m_view->setSpeed(16);
        QSignalSpy finished(controller, &sbui::ReplayController::finished);
        QTest::mouseClick(m_view->playButton(), Qt::LeftButton);
        QVERIFY(controller->isPlaying());
        QCOMPARE(m_view->playButton()->text(), QStringLiteral("Pause"));
        // About 5.5 s of capped recording at 16x: a third of a second.
        QVERIFY(finished.wait(10000));
        QVERIFY(!controller->isPlaying());
        QCOMPARE(m_view->positionNs(), m_rec.durationNs);
        QCOMPARE(shown(*m_view), referenceScreen(m_rec, m_rec.durationNs));
        QVERIFY(shown(*m_view).contains(QLatin1String("after-pause")));
        QCOMPARE(m_view->playButton()->text(), QStringLiteral("Play"));
        QCOMPARE(m_view->scrubber()->positionNs(), m_rec.durationNs);
        // Play at the end starts over.
        m_view->play();
        QVERIFY(m_view->positionNs() < 100 * kMs);
    }

    void markersShowCommandsApprovalsAndDenials()
    {
        const auto& markers = m_view->scrubber()->markers();
        auto count = [&](ReplayScrubber::MarkerKind kind) {
            return std::count_if(markers.begin(), markers.end(),
                                 [&](const auto& m) { return m.kind == kind; });
        };
        QVERIFY(count(ReplayScrubber::MarkerKind::Command) >=
                5); // seq, sleeps, printf is a builtin
        QVERIFY(count(ReplayScrubber::MarkerKind::Approval) >= 1); // touch asked
        QVERIFY(count(ReplayScrubber::MarkerKind::Denial) >= 2);   // rm by rule, touch timed out
        QVERIFY(std::is_sorted(markers.begin(), markers.end(),
                               [](const auto& a, const auto& b) { return a.tNs < b.tNs; }));
        auto rm = std::find_if(markers.begin(), markers.end(), [](const auto& m) {
            return m.kind == ReplayScrubber::MarkerKind::Denial &&
                   m.text.contains(QLatin1String("rm"));
        });
        QVERIFY(rm != markers.end());
        ReplayScrubber* scrubber = m_view->scrubber();
        const QString tip = scrubber->toolTipAt(QPoint(scrubber->xForTime(rm->tNs), 5));
        QVERIFY2(tip.contains(QLatin1String("denied")) &&
                     tip.contains(QLatin1String("rm -f gone.txt")),
                 qPrintable(tip));
        // Denials are drawn in their colour where they are.
        const QImage image = scrubber->grab().toImage();
        const QColor red =
            ReplayScrubber::markerColor(ReplayScrubber::MarkerKind::Denial, scrubber->palette());
        bool found = false;
        for (int x = scrubber->xForTime(rm->tNs) - 2; x <= scrubber->xForTime(rm->tNs) + 2; ++x)
            for (int y = 0; y < 8; ++y)
                found = found || image.pixelColor(x, y) == red;
        QVERIFY(found);
    }

    void nextAndPreviousEvent()
    {
        std::vector<qint64> stops;
        for (const auto& m : m_view->scrubber()->markers())
            if (m.tNs > 0 && (stops.empty() || stops.back() != m.tNs)) stops.push_back(m.tNs);
        QVERIFY(stops.size() >= 4);
        for (qint64 t : stops) {
            QTest::mouseClick(m_view->nextEventButton(), Qt::LeftButton);
            QCOMPARE(m_view->positionNs(), t);
            QCOMPARE(shown(*m_view), referenceScreen(m_rec, t));
        }
        QVERIFY(!m_view->nextEvent());
        QCOMPARE(m_view->positionNs(), stops.back());
        QTest::mouseClick(m_view->previousEventButton(), Qt::LeftButton);
        QCOMPARE(m_view->positionNs(), stops[stops.size() - 2]);
        QVERIFY(m_view->previousEvent());
        QCOMPARE(m_view->positionNs(), stops[stops.size() - 3]);
    }

    // The timeline selects what had happened at the position; a click on an event goes there.
    void activityFollowsThePosition()
    {
        sbui::ActivityView* activity = m_view->activityView();
        QTreeView* table = activity->table();
        const qint64 rmTime = markerTime(QStringLiteral("rm -f gone.txt"));
        QVERIFY(rmTime > 0);
        m_view->seek(rmTime);
        QVERIFY(table->currentIndex().isValid());
        QVERIFY2(currentSummary().contains(QLatin1String("rm -f gone.txt")),
                 qPrintable(currentSummary()));
        m_view->seek(rmTime - 1);
        QVERIFY(!currentSummary().contains(QLatin1String("rm -f gone.txt")));
        m_view->seek(0);
        const int atStart = m_view->controller()->eventIndexAt(0);
        QCOMPARE(currentRow(), atStart); // -1 (nothing selected) unless something happened at 0

        // With commands hidden, the nearest shown event before the position is selected.
        const int rmRow = sourceRowOf(QStringLiteral("rm -f gone.txt"));
        QVERIFY(rmRow >= 0);
        activity->categoryButton(sbui::ActivityModel::Category::Command)->click();
        m_view->seek(rmTime + 1);
        QVERIFY(currentRow() < rmRow);
        if (currentRow() >= 0)
            QVERIFY(activity->model()->category(currentRow()) !=
                    sbui::ActivityModel::Category::Command);
        activity->categoryButton(sbui::ActivityModel::Category::Command)->click();

        m_view->seek(0);
        const QModelIndex proxy = activity->filterModel()->mapFromSource(
            activity->model()->index(rmRow, sbui::ActivityModel::SummaryColumn));
        table->scrollTo(proxy);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(proxy).center());
        QCOMPARE(m_view->positionNs(), rmTime);
        QCOMPARE(currentRow(), rmRow);
        QCOMPARE(shown(*m_view), referenceScreen(m_rec, rmTime));
    }

    // Space plays and pauses, Ctrl+Right and Ctrl+Left go from event to event.
    // One list: the replay has no timeline of its own, it fills and follows the one it is given.
    void timelineIsTheWindowsOwn()
    {
        QVERIFY(m_view->findChildren<sbui::ActivityView*>().isEmpty());
        QCOMPARE(m_view->activityView(), m_timeline);
        QCOMPARE(m_timeline->model()->rowCount(),
                 static_cast<int>(m_view->controller()->events().size()));
        m_view->seek(markerTime(QStringLiteral("rm -f gone.txt")));
        QVERIFY2(currentSummary().contains(QLatin1String("rm -f gone.txt")),
                 qPrintable(currentSummary()));
    }

    // A pane shorter than the recording's 24 rows scrolls over the screen and keeps the cursor's
    // row, the newest output, in view; the user can still scroll to its top.
    void shortPaneKeepsTheNewestLinesInView()
    {
        m_window->resize(1200, 420);
        QTest::qWait(50);
        sbui::TerminalWidget* term = m_view->terminal();
        QVERIFY(term->viewport()->height() < 24 * term->cellSize().height());
        m_view->seek(outputTime("line5"));
        const int cursorRow = term->screen().cursor().row;
        QVERIFY2(cursorRow > term->viewport()->height() / term->cellSize().height(),
                 "the cursor should be below what the pane shows from the top");
        const QRect cursorCell = term->cellRect(cursorRow + term->scrollOffset(), 0);
        QVERIFY(cursorCell.top() >= 0);
        QVERIFY(cursorCell.bottom() < term->viewport()->height());
        const QString lastLine = term->lineText(cursorRow - 1);
        QVERIFY2(lastLine.contains(QLatin1String("line5")), qPrintable(lastLine));
        term->verticalScrollBar()->setValue(0);
        QCOMPARE(term->scrollOffset(), 0); // no scrollback: the screen's top
        m_view->seek(m_rec.durationNs);
        QVERIFY(term->cellRect(term->screen().cursor().row + term->scrollOffset(), 0).bottom() <
                term->viewport()->height());
    }

    void keyboardShortcuts()
    {
        m_view->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_view));
        m_view->terminal()->setFocus();
        QTest::keyClick(m_view->terminal(), Qt::Key_Space);
        QVERIFY(m_view->controller()->isPlaying());
        QTest::keyClick(m_view->terminal(), Qt::Key_Space);
        QVERIFY(!m_view->controller()->isPlaying());
        const auto first = m_view->scrubber()->nextMarker(m_view->positionNs());
        QVERIFY(first);
        QTest::keyClick(m_view->terminal(), Qt::Key_Right, Qt::ControlModifier);
        QCOMPARE(m_view->positionNs(), *first);
        const auto second = m_view->scrubber()->nextMarker(*first);
        QVERIFY(second);
        QTest::keyClick(m_view->terminal(), Qt::Key_Right, Qt::ControlModifier);
        QCOMPARE(m_view->positionNs(), *second);
        QTest::keyClick(m_view->terminal(), Qt::Key_Left, Qt::ControlModifier);
        QCOMPARE(m_view->positionNs(), *first);
    }

    void searchFindsTextAndJumpsThere()
    {
        m_view->searchEdit()->setText(QStringLiteral("line3"));
        QTest::keyClick(m_view->searchEdit(), Qt::Key_Return);
        QListWidget* hits = m_view->searchResults();
        QCOMPARE(hits->count(), 1);
        // The match near the start of its line in the list, where eliding does not reach it.
        const QString hitLine = hits->item(0)->text();
        QVERIFY2(hitLine.indexOf(QLatin1String("line3")) >= 0 &&
                     hitLine.indexOf(QLatin1String("line3")) <= 24,
                 qPrintable(hitLine));
        m_view->seek(m_rec.durationNs);
        hits->scrollToItem(hits->item(0));
        QTest::mouseClick(hits->viewport(), Qt::LeftButton, {},
                          hits->visualItemRect(hits->item(0)).center());
        QCOMPARE(m_view->positionNs(), outputTime("line3"));
        // The match is marked and in view, however short the pane.
        const auto match = m_view->terminal()->currentMatch();
        QVERIFY(match.has_value());
        QCOMPARE(m_view->terminal()->lineText(static_cast<int>(
                     match->line - m_view->terminal()->screen().firstScreenLine())),
                 QStringLiteral("line3"));
        const int viewRow =
            static_cast<int>(match->line - m_view->terminal()->screen().firstScreenLine()) +
            m_view->terminal()->scrollOffset();
        QVERIFY(viewRow >= 0);
        QVERIFY(m_view->terminal()->cellRect(viewRow, 0).bottom() <
                m_view->terminal()->viewport()->height());
        QVERIFY(shown(*m_view).contains(QLatin1String("line3")));
        QVERIFY(!shown(*m_view).contains(QLatin1String("line4")));
        QCOMPARE(shown(*m_view), referenceScreen(m_rec, m_view->positionNs()));

        QCOMPARE(m_view->search(QStringLiteral("no-such-text-anywhere")), 0);
        QCOMPARE(hits->count(), 0);
        QVERIFY(m_view->statusText().contains(QLatin1String("No terminal text")));
    }

    void parsesTimesAsPeopleWriteThem()
    {
        using sbui::parseReplayTime;
        QCOMPARE(parseReplayTime(QStringLiteral("90")), std::optional<qint64>(90'000 * kMs));
        QCOMPARE(parseReplayTime(QStringLiteral("1m30s")), std::optional<qint64>(90'000 * kMs));
        QCOMPARE(parseReplayTime(QStringLiteral("1:30")), std::optional<qint64>(90'000 * kMs));
        QCOMPARE(parseReplayTime(QStringLiteral(" 0:01.5 ")), std::optional<qint64>(1'500 * kMs));
        QCOMPARE(parseReplayTime(QStringLiteral("1:02:03")),
                 std::optional<qint64>(3'723'000 * kMs));
        QCOMPARE(parseReplayTime(QStringLiteral("250ms")), std::optional<qint64>(250 * kMs));
        QVERIFY(!parseReplayTime(QStringLiteral("1:75")));
        QVERIFY(!parseReplayTime(QStringLiteral("soon")));
        QVERIFY(!parseReplayTime(QStringLiteral("1:")));
        QVERIFY(!parseReplayTime(QString()));
        QCOMPARE(sbui::formatReplayTime(90'000 * kMs + 340 * kMs), QStringLiteral("1:30.3"));
        QCOMPARE(sbui::formatReplayTime(3'723'000 * kMs), QStringLiteral("1:02:03"));
    }

    void jumpsToATypedTime()
    {
        QLineEdit* time = m_view->timeEdit();
        time->setText(QStringLiteral("0:01.2"));
        QTest::keyClick(time, Qt::Key_Return);
        QCOMPARE(m_view->positionNs(), 1'200 * kMs);
        QCOMPARE(shown(*m_view), referenceScreen(m_rec, 1'200 * kMs));
        time->setText(QStringLiteral("2"));
        QTest::keyClick(time, Qt::Key_Return);
        QCOMPARE(m_view->positionNs(), 2'000 * kMs);
        QVERIFY(m_view->jumpTo(QStringLiteral("1m30s"))); // past the end: the end
        QCOMPARE(m_view->positionNs(), m_rec.durationNs);
        QVERIFY(!m_view->jumpTo(QStringLiteral("later")));
        QCOMPARE(m_view->positionNs(), m_rec.durationNs);
        QVERIFY(m_view->statusText().contains(QLatin1String("later")));
    }

    void scrubberSeeksWithMouseAndKeys()
    {
        ReplayScrubber* scrubber = m_view->scrubber();
        const qint64 target = outputTime("line4");
        const int x = scrubber->xForTime(target);
        QTest::mouseClick(scrubber, Qt::LeftButton, {}, QPoint(x, scrubber->height() / 2));
        // A pixel of the scrubber is a few ms of this recording.
        QCOMPARE(m_view->positionNs(), scrubber->timeAtX(x) / kMs * kMs);
        QCOMPARE(shown(*m_view), referenceScreen(m_rec, m_view->positionNs()));
        scrubber->setFocus();
        QTest::keyClick(scrubber, Qt::Key_End);
        QCOMPARE(m_view->positionNs(), m_rec.durationNs);
        QTest::keyClick(scrubber, Qt::Key_Home);
        QCOMPARE(m_view->positionNs(), 0);
        QTest::keyClick(scrubber, Qt::Key_Right);
        QCOMPARE(m_view->positionNs(), 1'000 * kMs);
        QCOMPARE(shown(*m_view), referenceScreen(m_rec, 1'000 * kMs));
    }

    void exportsAsciicastAndJsonLines()
    {
        QTemporaryDir dir;
        const QString cast = dir.filePath(QStringLiteral("session.cast"));
        m_view->setExportChooser([&](QWidget*) {
            return std::optional<ReplayView::ExportChoice>({sb::ExportFormat::Asciicast, cast});
        });
        QSignalSpy exported(m_view, &ReplayView::exported);
        QTest::mouseClick(m_view->exportButton(), Qt::LeftButton);
        QCOMPARE(exported.count(), 1);
        const QStringList castLines = readLines(cast);
        QVERIFY(castLines.size() > 5);
        const auto header = nlohmann::json::parse(castLines[0].toStdString());
        QCOMPARE(header["version"].get<int>(), 2);
        QCOMPARE(header["width"].get<int>(), 80);
        QCOMPARE(header["height"].get<int>(), 24);
        std::string output;
        for (int i = 1; i < castLines.size(); ++i) {
            const auto event = nlohmann::json::parse(castLines[i].toStdString());
            QVERIFY(event.is_array() && event.size() == 3);
            if (event[1] == "o") output += event[2].get<std::string>();
        }
        QVERIFY(output.find("line3") != std::string::npos);
        QVERIFY(output.find("after-pause") != std::string::npos);

        const QString jsonl = dir.filePath(QStringLiteral("session.jsonl"));
        QString error;
        QVERIFY2(m_view->exportTo(sb::ExportFormat::JsonLines, jsonl, &error), qPrintable(error));
        const QStringList lines = readLines(jsonl);
        QVERIFY(lines.size() > 5);
        const auto first = nlohmann::json::parse(lines[0].toStdString());
        QCOMPARE(first["type"].get<std::string>(), std::string("session"));
        QCOMPARE(QString::fromStdString(first["id"].get<std::string>()), kSession);
        bool line3 = false, deniedRm = false;
        for (int i = 1; i < lines.size(); ++i) {
            const auto event = nlohmann::json::parse(lines[i].toStdString());
            if (event["type"] == "output" &&
                event.value("text", "").find("line3") != std::string::npos)
                line3 = true;
            if (event["type"] == "exec_decision" &&
                event["payload"].value("decision", "") == "deny" &&
                event["payload"].dump().find("gone.txt") != std::string::npos)
                deniedRm = true;
        }
        QVERIFY(line3);
        QVERIFY(deniedRm);

        // A folder that cannot be written: an error, and no file.
        const QString bad = dir.filePath(QStringLiteral("missing/folder/x.cast"));
        QVERIFY(!m_view->exportTo(sb::ExportFormat::Asciicast, bad, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!QFile::exists(bad));
        QVERIFY(m_view->statusText().contains(QLatin1String("Export failed")));
    }

  private:
    // Time of the output event holding `text`.
    qint64 outputTime(const char* text) const
    {
        for (const sb::RecordedEvent& e : m_rec.terminal)
            if (e.kind == sb::EventKind::Output && e.data.find(text) != std::string::npos)
                return e.tNs;
        return -1;
    }

    // Time of the marker whose text (the timeline's summary) is `text`.
    qint64 markerTime(const QString& text) const
    {
        for (const auto& m : m_view->scrubber()->markers())
            if (m.text == text) return m.tNs;
        return -1;
    }

    int sourceRowOf(const QString& text) const
    {
        const sbui::ActivityModel* model = m_view->activityView()->model();
        for (int row = 0; row < model->rowCount(); ++row)
            if (model->summary(row) == text) return row;
        return -1;
    }

    int currentRow() const
    {
        const QModelIndex current = m_view->activityView()->table()->currentIndex();
        return current.isValid() ? m_view->activityView()->filterModel()->mapToSource(current).row()
                                 : -1;
    }

    QString currentSummary() const
    {
        const QModelIndex current = m_view->activityView()->table()->currentIndex();
        if (!current.isValid()) return {};
        const int row = m_view->activityView()->filterModel()->mapToSource(current).row();
        return m_view->activityView()->model()->summary(row);
    }

    TestWorld m_world;
    Recorded m_rec;
    std::unique_ptr<QWidget> m_window;
    sbui::ActivityView* m_timeline = nullptr;
    ReplayView* m_view = nullptr;
};

QTEST_MAIN(ReplayTest)
#include "ReplayTest.moc"
