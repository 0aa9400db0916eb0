#include "recording/RecordingReplay.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <thread>
#include <unistd.h>

namespace sb {
namespace {

Status writeAll(int fd, std::string_view bytes)
{
    while (!bytes.empty()) {
        ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return sysError("write replay output");
        bytes.remove_prefix(static_cast<size_t>(n));
    }
    return {};
}

} // namespace

Status replaySession(RecordingStore& store, const std::string& id, const ReplayOptions& options)
{
    if (!(options.speed > 0) || !std::isfinite(options.speed))
        return inputError("replay speed must be a positive number");
    if (options.toNs < options.fromNs) return inputError("replay --to is before --from");
    auto sleep = options.sleep ? options.sleep : [](std::int64_t ns) {
        std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
    };
    std::int64_t previous = options.fromNs;
    if (options.fromNs > 0) {
        // Start from the screen as it was, rebuilt from the nearest keyframe.
        auto session = store.session(id);
        if (!session) return session.error();
        const std::int64_t length = std::max(session->durationNs(), session->lastEventNs);
        if (options.fromNs > length)
            return inputError("replay --from " + formatDuration(options.fromNs) +
                              " is past the end of session " + id + ", which lasted " +
                              formatDuration(length));
        ScreenModel screen(session->rows, session->cols);
        if (auto e = store.screenAt(id, options.fromNs, screen)) return e;
        if (auto e = writeAll(options.outFd, screen.snapshot())) return e;
    }
    Status failed;
    std::int64_t from = options.fromNs > 0 ? options.fromNs + 1 : 0;
    auto e = store.forEachEvent(id, from, options.toNs, [&](const RecordedEvent& ev) {
        if (ev.kind != EventKind::Output) return true;
        std::int64_t gap = std::min(ev.tNs - previous, options.maxPauseNs);
        previous = ev.tNs;
        auto wait = static_cast<std::int64_t>(static_cast<double>(gap) / options.speed);
        if (wait > 0) sleep(wait);
        failed = writeAll(options.outFd, ev.data);
        return !failed;
    });
    if (e) return e;
    return failed;
}

Result<std::int64_t> parseDuration(const std::string& text)
{
    if (text.empty()) return inputError("empty duration");
    double total = 0;
    size_t i = 0;
    bool any = false;
    while (i < text.size()) {
        size_t used = 0;
        double value = 0;
        try {
            value = std::stod(text.substr(i), &used);
        } catch (const std::exception&) {
            return inputError("bad duration '" + text + "' (examples: 90, 1.5, 2m, 1m30s, 250ms)");
        }
        if (value < 0) return inputError("duration '" + text + "' is negative");
        i += used;
        std::string unit;
        while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i])))
            unit.push_back(text[i++]);
        double scale = 1;
        if (unit.empty() || unit == "s")
            scale = 1;
        else if (unit == "ms")
            scale = 1e-3;
        else if (unit == "m")
            scale = 60;
        else if (unit == "h")
            scale = 3600;
        else if (unit == "d")
            scale = 86400;
        else
            return inputError("bad duration unit '" + unit + "' in '" + text +
                              "' (use d, h, m, s or ms)");
        total += value * scale;
        any = true;
    }
    if (!any) return inputError("bad duration '" + text + "'");
    if (total * 1e9 >= 9e18) return inputError("duration '" + text + "' is too long");
    return static_cast<std::int64_t>(total * 1e9 + 0.5); // rounded: total is not negative
}

std::string formatDuration(std::int64_t ns)
{
    // In whole tenths of a second, rounded once: no floating-point remainder, which rounded
    // on its own could print 59.96 s past the hour as "59m60.0s". (And no libm: sandbench-cli
    // loads one library fewer at each start.)
    const long long tenths = (std::max<std::int64_t>(ns, 0) + 50'000'000) / 100'000'000;
    const long long h = tenths / 36000, m = tenths / 600 % 60, s = tenths % 600;
    char buf[64];
    if (h > 0)
        std::snprintf(buf, sizeof buf, "%lldh%02lldm%02lld.%llds", h, m, s / 10, s % 10);
    else if (m > 0)
        std::snprintf(buf, sizeof buf, "%lldm%02lld.%llds", m, s / 10, s % 10);
    else
        std::snprintf(buf, sizeof buf, "%lld.%llds", s / 10, s % 10);
    return buf;
}

} // namespace sb
