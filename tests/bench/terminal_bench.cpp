// Terminal pane benchmark: how fast TerminalWidget takes a flood of coloured output, against
// libvterm parsing the same bytes on its own, and how long the event loop ever stalls meanwhile.
//
//   terminal_bench [--quick] [--mb N] [--rounds N]
//
// A reference run (A) writes the bytes into a bare VTerm with its screen layer on and no
// callbacks; a measured run (B) feeds them to a shown TerminalWidget (offscreen platform by
// default) in 64 KiB chunks from a zero-timer, as a socket would deliver them, with the event
// loop running, painting included. Runs are interleaved A,B then B,A round by round after one
// warm-up round; the ratio is the median of per-round ratios (B's rate / A's rate). During B a
// 5 ms timer records how late it fires (the longest the event loop was away) and every event's
// dispatch is timed (the longest single handler).
//
// Prints a table and one `RESULT terminal …` line for tests/bench/run-benchmarks.sh. Exit status
// 0 when it ran (targets met or not: timings are not assertions), 2 on bad usage.
#include "terminal/TerminalWidget.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <time.h>
#include <vector>
#include <vterm.h>

namespace {

constexpr int kRows = 40;
constexpr int kCols = 120;
constexpr qsizetype kChunk = 64 * 1024;

// Deterministic pseudo-random numbers (xorshift64*), the same stream on every machine.
struct Rng {
    std::uint64_t state = 0x9e3779b97f4a7c15ull;
    std::uint32_t next()
    {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return static_cast<std::uint32_t>((state * 0x2545f4914f6cdd1dull) >> 32);
    }
    int below(int n) { return static_cast<int>(next() % static_cast<std::uint32_t>(n)); }
};

void appendUtf8(QByteArray& out, char32_t c)
{
    if (c < 0x800) {
        out += static_cast<char>(0xc0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3f));
    } else {
        out += static_cast<char>(0xe0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (c & 0x3f));
    }
}

// Build-log-like output: coloured words (16, 256 and true colour, some backgrounds and
// attributes), CJK words, long lines that wrap, progress bars redrawn in place and a little
// cursor movement.
QByteArray generate(qsizetype bytes)
{
    static const char* words[] = {"compiling", "src/main.cpp", "warning:", "error",  "ok",  "test",
                                  "passed",    "linking",      "target",   "[100%]", "-O2", "build",
                                  "done",      "0x7ffd",       "return",   "value",  "let", "fn"};
    Rng rng;
    QByteArray out;
    out.reserve(bytes + 4096);
    while (out.size() < bytes) {
        const int kind = rng.below(100);
        if (kind < 4) { // a progress bar redrawn in place
            for (int p = 0; p <= 100; p += 10) {
                out += "\r\x1b[K\x1b[32m[";
                out += QByteArray(p / 5, '#') + QByteArray(20 - p / 5, ' ');
                out += "]\x1b[0m " + QByteArray::number(p) + "%";
            }
            out += "\r\n";
            continue;
        }
        if (kind < 7) { // up a line, erase it, rewrite it; then a jump to a column
            out += "\x1b[A\x1b[2K\x1b[1;33mrewritten\x1b[0m\x1b[" +
                   QByteArray::number(rng.below(80) + 1) + "Gx\r\n";
            continue;
        }
        const int length = 20 + rng.below(140);
        int visible = 0;
        while (visible < length) {
            const int style = rng.below(100);
            bool styled = true;
            if (style < 25) {
                out += "\x1b[" + QByteArray::number((rng.below(2) ? 30 : 90) + rng.below(8)) + "m";
            } else if (style < 35) {
                out += "\x1b[38;5;" + QByteArray::number(rng.below(256)) + "m";
            } else if (style < 45) {
                out += "\x1b[38;2;" + QByteArray::number(rng.below(256)) + ";" +
                       QByteArray::number(rng.below(256)) + ";" +
                       QByteArray::number(rng.below(256)) + "m";
            } else if (style < 50) {
                out += "\x1b[48;5;" + QByteArray::number(rng.below(256)) + "m";
            } else if (style < 55) {
                out += rng.below(2) ? "\x1b[1m" : "\x1b[4m";
            } else {
                styled = false;
            }
            if (rng.below(10) == 0) {
                const int n = 2 + rng.below(3);
                for (int i = 0; i < n; ++i)
                    appendUtf8(out, static_cast<char32_t>(0x4e00 + rng.below(0x5000)));
                visible += 2 * n;
            } else {
                const char* w = words[rng.below(sizeof(words) / sizeof(words[0]))];
                out += w;
                visible += static_cast<int>(std::strlen(w));
            }
            if (styled) out += "\x1b[0m";
            out += ' ';
            ++visible;
        }
        out += "\r\n";
    }
    return out;
}

std::int64_t threadCpuNs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

double seconds(const QElapsedTimer& clock)
{
    return static_cast<double>(clock.nsecsElapsed()) / 1e9;
}

// A: libvterm alone, screen layer on, no callbacks.
double runRaw(const QByteArray& data)
{
    VTerm* vt = vterm_new(kRows, kCols);
    vterm_set_utf8(vt, 1);
    VTermScreen* screen = vterm_obtain_screen(vt);
    vterm_screen_enable_altscreen(screen, 1);
    vterm_screen_set_damage_merge(screen, VTERM_DAMAGE_SCROLL);
    vterm_screen_reset(screen, 1);
    QElapsedTimer clock;
    clock.start();
    for (qsizetype at = 0; at < data.size(); at += kChunk)
        vterm_input_write(vt, data.constData() + at,
                          static_cast<std::size_t>(std::min(kChunk, data.size() - at)));
    vterm_screen_flush_damage(screen);
    const double s = seconds(clock);
    vterm_free(vt);
    return s;
}

// Times every event dispatch that is not nested in another: wall time, and the CPU time this
// thread spent in the longest one (on a loaded machine the difference is time the process was
// not scheduled, which no code of ours can shorten).
class TimingApplication : public QApplication {
  public:
    using QApplication::QApplication;
    bool measuring = false;
    qint64 longestEventNs = 0;
    qint64 longestEventCpuNs = 0;
    bool notify(QObject* receiver, QEvent* event) override
    {
        if (!measuring || m_depth > 0) {
            ++m_depth;
            const bool r = QApplication::notify(receiver, event);
            --m_depth;
            return r;
        }
        QElapsedTimer clock;
        clock.start();
        const std::int64_t cpu = threadCpuNs();
        ++m_depth;
        const bool r = QApplication::notify(receiver, event);
        --m_depth;
        if (clock.nsecsElapsed() > longestEventNs) {
            longestEventNs = clock.nsecsElapsed();
            longestEventCpuNs = threadCpuNs() - cpu;
        }
        return r;
    }

  private:
    int m_depth = 0;
};

class PaintCounter : public QObject {
  public:
    int paints = 0;
    bool eventFilter(QObject*, QEvent* event) override
    {
        if (event->type() == QEvent::Paint) ++paints;
        return false;
    }
};

struct WidgetRun {
    double seconds = 0;
    double latenessMs = 0; // the 5 ms timer's worst lateness
    double longestEventMs = 0;
    double longestEventCpuMs = 0; // CPU time of that event
    int paints = 0;
};

// B: a shown TerminalWidget fed from a zero-timer; done at the first paint after the last byte
// was parsed.
WidgetRun runWidget(TimingApplication& app, const QByteArray& data)
{
    sbui::TerminalWidget term;
    term.resizeTerminal(kRows, kCols);
    const QSize cell = term.cellSize();
    term.resize(kCols * cell.width() + 40, kRows * cell.height() + 10);
    term.show();
    for (int i = 0; i < 20; ++i)
        app.processEvents(QEventLoop::AllEvents, 10);
    PaintCounter counter;
    term.viewport()->installEventFilter(&counter);

    WidgetRun run;
    QEventLoop loop;
    QElapsedTimer clock, sinceTick;
    qsizetype offset = 0;
    int paintsAtEnd = -1;
    QTimer feeder;
    feeder.setInterval(0);
    QObject::connect(&feeder, &QTimer::timeout, [&] {
        if (offset < data.size()) {
            const qsizetype n = std::min(kChunk, data.size() - offset);
            term.feed(QByteArray(data.constData() + offset, n)); // a fresh buffer, as from a socket
            offset += n;
        } else if (!term.hasPendingInput()) {
            if (paintsAtEnd < 0) paintsAtEnd = counter.paints;
            if (counter.paints > paintsAtEnd) loop.quit();
        }
    });
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    ticker.setInterval(5);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const double gap = static_cast<double>(sinceTick.nsecsElapsed()) / 1e6;
        run.latenessMs = std::max(run.latenessMs, gap - 5.0);
        sinceTick.restart();
    });
    app.longestEventNs = 0;
    app.longestEventCpuNs = 0;
    app.measuring = true;
    clock.start();
    sinceTick.start();
    ticker.start();
    feeder.start();
    loop.exec();
    app.measuring = false;
    run.seconds = seconds(clock);
    run.longestEventMs = static_cast<double>(app.longestEventNs) / 1e6;
    run.longestEventCpuMs = static_cast<double>(app.longestEventCpuNs) / 1e6;
    run.paints = counter.paints;
    return run;
}

double quantile(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    const double h = static_cast<double>(v.size() - 1) * p;
    const auto lo = static_cast<std::size_t>(h);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

std::string triple(const std::vector<double>& v)
{
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.3f,%.3f,%.3f", quantile(v, 0.5), quantile(v, 0.25),
                  quantile(v, 0.75));
    return buf;
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    int megabytes = 50, rounds = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick") {
            megabytes = 10;
            rounds = 3;
        } else if (arg == "--mb" && i + 1 < argc) {
            megabytes = std::max(1, std::atoi(argv[++i]));
        } else if (arg == "--rounds" && i + 1 < argc) {
            rounds = std::max(1, std::atoi(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: terminal_bench [--quick] [--mb N] [--rounds N]\n");
            return 2;
        }
    }
    TimingApplication app(argc, argv);
    const QByteArray data = generate(static_cast<qsizetype>(megabytes) * 1024 * 1024);
    const double mb = static_cast<double>(data.size()) / 1e6;
    std::printf("terminal_bench: %.1f MB of mixed output, %dx%d, %lld KiB chunks, %d rounds after "
                "1 warm-up, A (libvterm) and B (widget) interleaved\n\n",
                mb, kRows, kCols, static_cast<long long>(kChunk / 1024), rounds);
    std::printf("round  order  libvterm MB/s  widget MB/s  ratio  late ms  longest event ms (cpu)  "
                "paints\n");

    std::vector<double> rawRates, widgetRates, ratios, lateness, longest, longestCpu;
    for (int r = 0; r <= rounds; ++r) {
        double raw = 0;
        WidgetRun widget;
        if (r % 2 == 0) {
            raw = runRaw(data);
            widget = runWidget(app, data);
        } else {
            widget = runWidget(app, data);
            raw = runRaw(data);
        }
        const double rawRate = mb / raw, widgetRate = mb / widget.seconds;
        std::printf("%5d  %5s  %13.1f  %11.1f  %5.2f  %7.1f  %16.1f (%4.1f)  %6d%s\n", r,
                    r % 2 == 0 ? "A,B" : "B,A", rawRate, widgetRate, widgetRate / rawRate,
                    widget.latenessMs, widget.longestEventMs, widget.longestEventCpuMs,
                    widget.paints, r == 0 ? "  (warm-up)" : "");
        std::fflush(stdout);
        if (r == 0) continue;
        rawRates.push_back(rawRate);
        widgetRates.push_back(widgetRate);
        ratios.push_back(widgetRate / rawRate);
        lateness.push_back(widget.latenessMs);
        longest.push_back(widget.longestEventMs);
        longestCpu.push_back(widget.longestEventCpuMs);
    }
    const double ratio = quantile(ratios, 0.5);
    const double worstLate = *std::max_element(lateness.begin(), lateness.end());
    const double worstEvent = *std::max_element(longest.begin(), longest.end());
    const double worstEventCpu = *std::max_element(longestCpu.begin(), longestCpu.end());
    std::printf("\nthroughput: widget %.1f MB/s, libvterm %.1f MB/s, ratio %.2f [%.2f-%.2f] "
                "(target >= 0.5: %s)\n",
                quantile(widgetRates, 0.5), quantile(rawRates, 0.5), ratio, quantile(ratios, 0.25),
                quantile(ratios, 0.75), ratio >= 0.5 ? "met" : "NOT met");
    std::printf(
        "event loop: worst timer lateness %.1f ms, longest event %.1f ms (target <= 50: %s); "
        "the longest events used at most %.1f ms of CPU (the rest: not scheduled)\n",
        worstLate, worstEvent, std::max(worstLate, worstEvent) <= 50 ? "met" : "NOT met",
        worstEventCpu);
    std::printf("RESULT terminal n=%d mb=%.0f ratio=%s widget_mbps=%s raw_mbps=%s late_ms=%s "
                "late_max_ms=%.1f event_max_ms=%.1f event_cpu_max_ms=%.1f\n",
                rounds, mb, triple(ratios).c_str(), triple(widgetRates).c_str(),
                triple(rawRates).c_str(), triple(lateness).c_str(), worstLate, worstEvent,
                worstEventCpu);
    return 0;
}
