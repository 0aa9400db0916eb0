// The E2B API's unit tests' fixture: an Api over a fake launcher and fake supervisors
// (tests/support/E2bTestSupport.h), requests in memory, and the parts of a Connect stream.
#pragma once

#include "E2bTestSupport.h"
#include "e2b/Connect.h"

#include <gtest/gtest.h>
#include <list>

namespace sbtest {

using nlohmann::json;

// The messages of a streamed Connect response, and its end-of-stream JSON.
struct Stream {
    std::vector<json> messages;
    json end;
    bool ended = false;
};

inline Stream parseStream(std::string_view body)
{
    Stream s;
    while (body.size() >= 5) {
        const auto flags = static_cast<std::uint8_t>(body[0]);
        std::uint32_t size = 0;
        for (int i = 1; i < 5; ++i)
            size = (size << 8) | static_cast<std::uint8_t>(body[i]);
        json message = json::parse(body.substr(5, size));
        body.remove_prefix(5 + size);
        if (flags == sb::e2b::kEndStream) {
            s.end = message;
            s.ended = true;
        } else {
            s.messages.push_back(message);
        }
    }
    return s;
}

class E2bApiTest : public ::testing::Test {
  protected:
    E2bApiTest() { makeApi(std::size_t{1} << 30); }
    void makeApi(std::size_t maxUpload, const std::string& pausedDir = {}, bool spares = false)
    {
        api.reset(); // one API at a time, as one server
        sb::e2b::ApiOptions options;
        options.apiKey = "sb_key";
        options.spares = spares;
        options.maxUpload = maxUpload;
        options.pausedDir = pausedDir;
        options.connect =
            [this](const std::string&) -> sb::Result<std::unique_ptr<sb::e2b::SessionLink>> {
            std::lock_guard lock(m_mutex);
            return m_supervisors.emplace_back(canPause.load()).link();
        };
        options.usage = [this](const std::string& session) -> sb::Result<sb::e2b::SandboxUsage> {
            std::lock_guard lock(m_mutex);
            if (!usage) return sb::unsupported("no cgroup here");
            sb::e2b::SandboxUsage u = *usage;
            u.diskUsed += session.size(); // tells sessions apart
            return u;
        };
        api = std::make_unique<sb::e2b::Api>(launcher, options);
    }

    MemoryExchange rest(std::string method, std::string target, std::string body = {},
                        std::string key = "sb_key")
    {
        MemoryExchange ex(std::move(method), std::move(target), std::move(body),
                          {{"X-API-Key", std::move(key)}});
        api->handle(ex);
        return ex;
    }

    json create()
    {
        auto ex = rest("POST", "/v2/sandboxes", R"({"templateID": "base", "envVars": {"A": "1"}})");
        EXPECT_EQ(ex.status, 201) << ex.response;
        return json::parse(ex.response);
    }

    MemoryExchange envd(const json& sandbox, std::string target, std::string body,
                        std::string method = "POST")
    {
        MemoryExchange ex(std::move(method), std::move(target), std::move(body),
                          {{"E2b-Sandbox-Id", sandbox["sandboxID"].get<std::string>()},
                           {"X-Access-Token", sandbox["envdAccessToken"].get<std::string>()}});
        api->handle(ex);
        return ex;
    }

    sbtest::FakeLauncher launcher;
    std::atomic<bool> canPause{true}; // whether the next sandboxes' sessions can be frozen
    // What the sessions' resource use reads as (under m_mutex); none: they have no cgroup.
    std::optional<sb::e2b::SandboxUsage> usage;
    std::mutex m_mutex;
    std::list<sbtest::FakeSupervisor> m_supervisors; // outlive the api's links
    std::unique_ptr<sb::e2b::Api> api;
};

} // namespace sbtest

using sbtest::E2bApiTest;
