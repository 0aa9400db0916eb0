// The control plane's list of sandboxes (GET /v2/sandboxes): E2B's filters (metadata, state,
// template, startedAfter), its order (newest first unless `order=asc`) and its pages (`limit`,
// and the X-Next-Token header naming where the next page begins).
#include "base/Bytes.h"
#include "e2b/E2bInternal.h"

#include <algorithm>
#include <charconv>
#include <ctime>
#include <limits>

namespace sb::e2b {

using json = nlohmann::json;
using Clock = std::chrono::system_clock;

namespace {

// The SDK's metadata filter: metadata=k=v&k2=v2, each key and value percent-encoded by it, the
// whole encoded once more as the parameter's value.
std::map<std::string, std::string> metadataFilter(std::string_view query)
{
    std::map<std::string, std::string> out;
    auto raw = http::queryValue(query, "metadata");
    if (!raw) return out;
    std::string_view rest = *raw;
    while (!rest.empty()) {
        const std::size_t amp = rest.find('&');
        const std::string_view pair = rest.substr(0, amp);
        const std::size_t eq = pair.find('=');
        if (eq != std::string_view::npos)
            out[http::percentDecode(http::percentDecode(pair.substr(0, eq), true), false)] =
                http::percentDecode(http::percentDecode(pair.substr(eq + 1), true), false);
        if (amp == std::string_view::npos) break;
        rest.remove_prefix(amp + 1);
    }
    return out;
}

bool digits(std::string_view text, std::size_t at, std::size_t count, int& value)
{
    if (at + count > text.size()) return false;
    const char* first = text.data() + at;
    auto [end, ec] = std::from_chars(first, first + count, value);
    return ec == std::errc() && end == first + count;
}

} // namespace

std::optional<long long> parseRfc3339(std::string_view text)
{
    // 2024-05-01T12:34:56[.fraction](Z|+hh:mm|-hh:mm)
    std::tm t{};
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (!digits(text, 0, 4, year) || text.size() < 20 || text[4] != '-' ||
        !digits(text, 5, 2, month) || text[7] != '-' || !digits(text, 8, 2, day) ||
        (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || !digits(text, 11, 2, hour) ||
        text[13] != ':' || !digits(text, 14, 2, minute) || text[16] != ':' ||
        !digits(text, 17, 2, second))
        return std::nullopt;
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
        return std::nullopt;
    std::size_t at = 19;
    long long nanos = 0;
    if (at < text.size() && text[at] == '.') {
        long long scale = 100000000;
        ++at;
        const std::size_t start = at;
        for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, scale /= 10)
            nanos += (text[at] - '0') * scale;
        if (at == start) return std::nullopt;
    }
    long long offset = 0;
    if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
        ++at;
    } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
        int oh = 0, om = 0;
        if (!digits(text, at + 1, 2, oh) || at + 3 >= text.size() || text[at + 3] != ':' ||
            !digits(text, at + 4, 2, om))
            return std::nullopt;
        offset = (text[at] == '+' ? 1 : -1) * (oh * 3600LL + om * 60LL);
        at += 6;
    } else {
        return std::nullopt;
    }
    if (at != text.size()) return std::nullopt;
    t.tm_year = year - 1900;
    t.tm_mon = month - 1;
    t.tm_mday = day;
    t.tm_hour = hour;
    t.tm_min = minute;
    t.tm_sec = second;
    const long long seconds = static_cast<long long>(::timegm(&t)) - offset;
    // Nanoseconds since 1970 hold until 2262: a later time is later than any sandbox's start.
    constexpr long long kLast = std::numeric_limits<long long>::max() / 1000000000LL - 1;
    if (seconds > kLast) return std::numeric_limits<long long>::max();
    if (seconds < -kLast) return std::numeric_limits<long long>::min();
    return seconds * 1000000000LL + nanos;
}

void Api::listSandboxes(http::Exchange& ex)
{
    const std::string_view query = ex.rawQuery();
    const auto filter = metadataFilter(query);

    // state=running,paused (the SDK sends the list comma-separated); absent: both.
    bool running = true, paused = true;
    if (auto state = http::queryValue(query, "state"); state && !state->empty()) {
        running = paused = false;
        std::string_view rest = *state;
        while (!rest.empty()) {
            const std::size_t comma = rest.find(',');
            const std::string_view one = rest.substr(0, comma);
            if (one == "running")
                running = true;
            else if (one == "paused")
                paused = true;
            else
                return restError(ex, 400,
                                 "state must be running and/or paused, not " + std::string(one));
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
    }
    const auto order = http::queryValue(query, "order").value_or("desc");
    if (order != "asc" && order != "desc")
        return restError(ex, 400, "order must be asc or desc, not " + order);
    const bool newestFirst = order == "desc";
    std::optional<long long> startedAfter;
    if (auto after = http::queryValue(query, "startedAfter"); after && !after->empty()) {
        startedAfter = parseRfc3339(*after);
        if (!startedAfter)
            return restError(ex, 400, "startedAfter must be an RFC 3339 time, not " + *after);
    }
    const auto templateName = http::queryValue(query, "template");
    std::size_t limit = 100;
    if (auto l = http::queryValue(query, "limit")) {
        unsigned long long value = 0;
        auto [end, ec] = std::from_chars(l->data(), l->data() + l->size(), value);
        if (ec != std::errc() || end != l->data() + l->size() || value < 1 || value > 100)
            return restError(ex, 400, "limit must be a number from 1 to 100, not " + *l);
        limit = static_cast<std::size_t>(value);
    }
    // The next token names the last sandbox of the page before: "<started, ns>_<id>".
    std::optional<std::pair<long long, std::string>> after;
    if (auto token = http::queryValue(query, "nextToken"); token && !token->empty()) {
        const std::size_t cut = token->find('_');
        long long ns = 0;
        auto [end, ec] = std::from_chars(token->data(), token->data() + token->size(), ns);
        if (cut == std::string::npos || ec != std::errc() || end != token->data() + cut)
            return restError(ex, 400, "nextToken is not one this server gave: " + *token);
        after = std::pair(ns, token->substr(cut + 1));
    }

    auto startedNs = [](const Sandbox& s) {
        return static_cast<long long>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(s.startedAt.time_since_epoch())
                .count());
    };
    std::vector<std::shared_ptr<Sandbox>> all;
    std::unique_lock lock(m_mutex); // for the sandboxes' state
    for (const auto& [id, s] : m_sandboxes)
        if (s->dormant || s->link->alive()) all.push_back(s);
    std::erase_if(all, [&](const std::shared_ptr<Sandbox>& s) {
        for (const auto& [k, v] : filter)
            if (!s->metadata.contains(k) || s->metadata[k] != v) return true;
        if (s->paused ? !paused : !running) return true;
        if (templateName && !templateName->empty() && s->templateId != *templateName) return true;
        return startedAfter && startedNs(*s) < *startedAfter;
    });
    auto key = [&](const Sandbox& s) { return std::pair(startedNs(s), s.id); };
    std::sort(all.begin(), all.end(), [&](const auto& a, const auto& b) {
        return newestFirst ? key(*b) < key(*a) : key(*a) < key(*b);
    });
    if (after)
        std::erase_if(all, [&](const std::shared_ptr<Sandbox>& s) {
            return newestFirst ? !(key(*s) < *after) : !(*after < key(*s));
        });

    json list = json::array();
    for (std::size_t i = 0; i < all.size() && i < limit; ++i) {
        json entry = detailJson(*all[i], all[i]->endAt, m_options.envdVersion);
        entry["domain"] = domainOf(ex);
        entry.erase("envdAccessToken");
        list.push_back(std::move(entry));
    }
    http::Headers headers;
    if (all.size() > limit) {
        const auto [ns, id] = key(*all[limit - 1]);
        headers.push_back({"X-Next-Token", std::to_string(ns) + "_" + id});
    }
    ex.respond(200, "application/json", dumpJson(list), headers);
}

} // namespace sb::e2b
