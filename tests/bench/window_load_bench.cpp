// The window under many processes (issue 37, item 7): does the terminal stay current, and does
// a tab switch stay quick, while a session starts processes and writes files at an L1-like rate?
//
//   window_load_bench [--seconds N] [--rounds N] [--rate EVENTS_PER_MIN]
//
// The whole MainWindow (offscreen platform by default), shown at 1360x860, watches a real
// headless session (sandbench-cli run --headless) whose shell prints `mark N TIME` lines, TIME
// its wall clock (shared with the sandbox). Reference (A): the shell only prints the marks, ten a
// second. Measured (B): each pass also starts three processes (ls, cat, date) and writes a file,
// paced to the given rate of process events (5,000 a minute by default). A,B then B,A round by
// round; the first 3 s of each phase are discarded.
//   * Terminal lag: from a mark's TIME until a 5 ms timer in the window finds the mark on the
//     terminal widget's screen, output it has not parsed yet not counting (the timer waits
//     behind whatever else the GUI thread does).
//   * Tab switch: once a second a switch to the next tab (those a live session has) is
//     posted to the event loop; from posting until the tab is current and painted.
// Prints both per phase (p50, p95), the ratio B/A of the lag p50s, the process-event rate
// reached (the Activity model's command rows) and the window's CPU use. Exit status 0 when it
// ran (targets met or not: timings are not assertions), 1 when it could not, 2 on bad usage.
#include "GuiTestSupport.h"
#include "activity/ActivityModel.h"
#include "activity/ActivityView.h"
#include "main/MainWindow.h"
#include "terminal/TerminalWidget.h"

#include <QApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace {

using sbui::TerminalWidget;

struct Phase {
    std::vector<double> lagMs, tabMs;
    double eventsPerMin = 0, cpuPercent = 0;
};

double percentile(std::vector<double> v, double p)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto at = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[at];
}

double cpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// The shell's loop: a mark each pass, paced by `read -t` on a pipe that never speaks (no
// process per wait). Loaded: three processes and one new file a pass as well, as a build
// writes its objects (the session's changes grow all the time).
QString script(bool loaded, int eventsPerMin)
{
    const int periodUs = loaded ? 3 * 60'000'000 / std::max(eventsPerMin, 1) : 100'000;
    const QString work = loaded ? QStringLiteral("ls >/dev/null; cat f$((i-1)) >/dev/null 2>&1; "
                                                 "date +%N > f$i; ")
                                : QString();
    return QStringLiteral("exec 3< <(exec sleep 100000); next=${EPOCHREALTIME/./}; i=0; "
                          "while :; do echo \"mark $i $EPOCHREALTIME\"; %1"
                          "i=$((i+1)); next=$((next+%2)); now=${EPOCHREALTIME/./}; "
                          "d=$((next-now)); if ((d>0)); then printf -v t '%d.%06d' "
                          "$((d/1000000)) $((d%1000000)); read -t $t -u 3; fi; done")
        .arg(work)
        .arg(periodUs);
}

bool runPhase(sbgt::TestWorld& world, const QString& policy, bool loaded, int seconds,
              int eventsPerMin, int serial, Phase& out)
{
    QString error;
    const QString id = QStringLiteral("window-load-%1-%2").arg(serial).arg(loaded ? "b" : "a");
    auto session = sbgt::HeadlessSession::start(
        world, id,
        {QStringLiteral("--network"), QStringLiteral("none"), QStringLiteral("--policy"), policy},
        {QStringLiteral("bash"), QStringLiteral("-c"), script(loaded, eventsPerMin)}, &error);
    if (!session) {
        std::fprintf(stderr, "window_load_bench: the session did not start: %s\n",
                     qPrintable(error));
        return false;
    }
    sbui::MainWindow window;
    window.resize(1360, 860);
    window.show();
    if (!window.selectSession(id)) {
        std::fprintf(stderr, "window_load_bench: the window did not show session %s\n",
                     qPrintable(id));
        return false;
    }
    QTabWidget* tabs = window.tabs();
    std::vector<QWidget*> pages; // the tabs that apply to a live session
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->isTabVisible(i)) pages.push_back(tabs->widget(i));

    const QRegularExpression markRe(QStringLiteral("mark (\\d+) (\\d+)\\.(\\d+)"));
    long lastMark = -1;
    QElapsedTimer clock;
    clock.start();
    const qint64 warmUpMs = 3000;
    auto nowUs = [] { return QDateTime::currentMSecsSinceEpoch() * 1000; };
    QTimer poll;
    poll.setInterval(5);
    QObject::connect(&poll, &QTimer::timeout, [&] {
        // Output the widget holds but has not parsed yet is not shown: reading the screen now
        // would parse it (and hide the widget's own delay).
        TerminalWidget* terminal = window.terminal();
        if (terminal->hasPendingInput()) return;
        const qint64 seenUs = nowUs();
        for (int line = terminal->rows() - 1; line >= 0; --line) { // the newest mark is lowest
            const auto m = markRe.match(terminal->lineText(line));
            if (!m.hasMatch()) continue;
            const long n = m.captured(1).toLong();
            if (n <= lastMark) return;
            lastMark = n;
            const qint64 markUs =
                m.captured(2).toLongLong() * 1'000'000 + m.captured(3).toLongLong();
            if (clock.elapsed() >= warmUpMs)
                out.lagMs.push_back(static_cast<double>(seenUs - markUs) / 1000.0);
            return;
        }
    });
    poll.start();

    std::size_t next = 1;
    QTimer switcher;
    switcher.setInterval(1000);
    QObject::connect(&switcher, &QTimer::timeout, [&] {
        QElapsedTimer posted;
        posted.start();
        QWidget* page = pages[next++ % pages.size()];
        QMetaObject::invokeMethod(
            tabs,
            [&, posted, page] {
                tabs->setCurrentWidget(page);
                window.repaint();
                if (clock.elapsed() >= warmUpMs)
                    out.tabMs.push_back(static_cast<double>(posted.nsecsElapsed()) / 1e6);
            },
            Qt::QueuedConnection);
    });
    switcher.start();

    auto commandRows = [&] {
        const sbui::ActivityModel* model = window.activity()->model();
        int n = 0;
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->category(r) == sbui::ActivityModel::Category::Command) ++n;
        return n;
    };
    int rowsAtStart = 0;
    double cpuAtStart = 0;
    QTimer::singleShot(warmUpMs, [&] {
        rowsAtStart = commandRows();
        cpuAtStart = cpuSeconds();
    });
    const qint64 endMs = warmUpMs + seconds * 1000LL;
    QEventLoop loop;
    QTimer::singleShot(std::max<qint64>(endMs - clock.elapsed(), 0), &loop, &QEventLoop::quit);
    loop.exec();
    poll.stop();
    switcher.stop();
    window.activity()->model()->flush();
    const double measuredS = static_cast<double>(seconds);
    out.eventsPerMin = (commandRows() - rowsAtStart) * 60.0 / measuredS;
    out.cpuPercent = (cpuSeconds() - cpuAtStart) * 100.0 / measuredS;
    return true;
}

void print(const char* name, const Phase& p)
{
    std::printf("%-22s lag p50 %7.1f ms  p95 %7.1f ms (%zu marks)  tab switch p50 %6.1f ms  "
                "p95 %6.1f ms (%zu)  %5.0f process events/min  CPU %3.0f %%\n",
                name, percentile(p.lagMs, 0.5), percentile(p.lagMs, 0.95), p.lagMs.size(),
                percentile(p.tabMs, 0.5), percentile(p.tabMs, 0.95), p.tabMs.size(), p.eventsPerMin,
                p.cpuPercent);
}

} // namespace

int main(int argc, char** argv)
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    int seconds = 20, rounds = 2, rate = 5000;
    for (int i = 1; i < argc; ++i) {
        auto value = [&](int& into) {
            if (i + 1 >= argc) return false;
            into = std::atoi(argv[++i]);
            return into > 0;
        };
        const bool ok = (!std::strcmp(argv[i], "--seconds") && value(seconds)) ||
                        (!std::strcmp(argv[i], "--rounds") && value(rounds)) ||
                        (!std::strcmp(argv[i], "--rate") && value(rate));
        if (!ok) {
            std::fprintf(stderr,
                         "usage: window_load_bench [--seconds N] [--rounds N] "
                         "[--rate EVENTS_PER_MIN]\n  (bad or unknown: %s)\n",
                         argv[i]);
            return 2;
        }
    }
    QApplication app(argc, argv);
    sbgt::TestWorld world;
    QString why;
    if (!sbgt::sandboxWorks(world, &why)) {
        std::fprintf(stderr, "window_load_bench: no sandbox here: %s\n", qPrintable(why));
        return 1;
    }
    const QString policy = world.writePolicy(R"({"version": 1,
  "commands": {"default": "allow"}})");
    Phase idle, loaded;
    std::vector<double> ratios;
    for (int round = 0; round < rounds; ++round) {
        Phase a, b;
        const bool loadedFirst = round % 2 == 1;
        for (int k = 0; k < 2; ++k) {
            const bool isLoaded = (k == 0) == loadedFirst;
            if (!runPhase(world, policy, isLoaded, seconds, rate, round, isLoaded ? b : a))
                return 1;
        }
        if (!a.lagMs.empty() && percentile(a.lagMs, 0.5) > 0)
            ratios.push_back(percentile(b.lagMs, 0.5) / percentile(a.lagMs, 0.5));
        for (auto [from, into] : {std::pair{&a, &idle}, std::pair{&b, &loaded}}) {
            into->lagMs.insert(into->lagMs.end(), from->lagMs.begin(), from->lagMs.end());
            into->tabMs.insert(into->tabMs.end(), from->tabMs.begin(), from->tabMs.end());
            into->eventsPerMin += from->eventsPerMin / rounds;
            into->cpuPercent += from->cpuPercent / rounds;
        }
    }
    print("A idle session", idle);
    print("B L1-like load", loaded);
    const double ratio = percentile(ratios, 0.5);
    std::printf("lag ratio B/A (median of rounds): %.2f  targets: lag <= 200 ms, tab switch <= "
                "100 ms\n",
                ratio);
    std::printf("RESULT window_load lag_p50_ms=%.1f lag_p95_ms=%.1f tab_p50_ms=%.1f "
                "tab_p95_ms=%.1f idle_lag_p50_ms=%.1f idle_tab_p50_ms=%.1f ratio=%.2f "
                "events_per_min=%.0f cpu_percent=%.0f\n",
                percentile(loaded.lagMs, 0.5), percentile(loaded.lagMs, 0.95),
                percentile(loaded.tabMs, 0.5), percentile(loaded.tabMs, 0.95),
                percentile(idle.lagMs, 0.5), percentile(idle.tabMs, 0.5), ratio,
                loaded.eventsPerMin, loaded.cpuPercent);
    return 0;
}
