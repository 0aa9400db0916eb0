// The E2B Code Interpreter (docs/e2b.md, "The Code Interpreter"): what the `@e2b/code-interpreter`
// SDK asks of a sandbox's port 49999 (`/execute`, which streams one JSON object a line, and
// `/contexts`), served by Sandbench's own gateway inside the sandbox. The gateway is a small
// Python program run as one process of the session (so it and the Jupyter kernels it starts
// from Debian's ipykernel meet the policy and exec approval, and are recorded); it opens no port
// and speaks JSON lines on its stdin and stdout, which `serve` reaches through the session's
// exec streams. This file: the checks of what clients send (the request bodies) and of what the
// gateway sends back (its lines), and the gateway's process.
#pragma once

#include "base/Error.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace sb::e2b {

class SessionLink;
class EventQueue;

// The port the SDK names (E2b-Sandbox-Port) for the code interpreter.
inline constexpr std::string_view kCodeInterpreterPort = "49999";
// The tag of the gateway's process, which the process list leaves out (it is no process the
// client started).
inline constexpr std::string_view kGatewayTag = "sandbench-code-interpreter";
// Templates whose sandboxes run it.
bool isCodeInterpreterTemplate(std::string_view templateId);

// POST /execute's body: {code, context_id?, language?, env_vars?}; any other field is refused by
// name, as is a context together with a language.
struct ExecuteRequest {
    std::string code;
    std::string contextId;
    std::string language; // normalised (languageOf); empty: the default context
    std::map<std::string, std::string> envVars;
};
Result<ExecuteRequest> parseExecute(const nlohmann::json& body);

// POST /contexts' body: {language?, cwd?}.
struct ContextRequest {
    std::string language = "python";
    std::string cwd; // absolute; `home` when absent
};
Result<ContextRequest> parseCreateContext(const nlohmann::json& body, const std::string& home);

// A language as the SDK names it ("Python", "js", "ts"), lower case and unaliased; an
// InvalidInput naming it for one not served here (Python, Debian's ipykernel, and bash are).
Result<std::string> languageOf(std::string_view name);

// One line of the gateway's stdout: about which request, and what.
struct GatewayMessage {
    enum class Kind { Output, End, Reply, Fail, Ready, Gone };
    Kind kind = Kind::Gone;
    std::string id;
    nlohmann::json body;      // Output: an execute line (checked); Reply: the answer; Fail: message
    int status = 0;           // Fail: the HTTP status the gateway asks for (400, 404 or 500)
    bool sandboxGone = false; // Gone: with the sandbox (killed, timed out), not alone
};
// nullopt for a line that is not one (the gateway runs in the sandbox: outside input).
std::optional<GatewayMessage> parseGatewayLine(std::string_view line);

// An execute line as the SDK reads it, from what the gateway sent: stdout, stderr, result,
// error or number_of_executions with fields of the right types; nullopt for anything else.
std::optional<nlohmann::json> executeLine(const nlohmann::json& out);

// The gateway's source (KernelGatewayScript.cpp), whose second part, the extras
// (KernelGatewayExtras.cpp), has the chart data read in kernels and the bash contexts.
const std::string& kernelGatewayScript();
std::string_view kernelGatewayExtras();

// The gateway's process in one sandbox, and the requests waiting for its answers.
class KernelGateway {
  public:
    // What one request hears, in order.
    class Call {
      public:
        // What arrived, waiting up to `timeout` for something.
        std::deque<GatewayMessage> take(std::chrono::milliseconds timeout);
        const std::string& id() const { return m_id; }

      private:
        friend class KernelGateway;
        void push(GatewayMessage message);
        std::string m_id;
        std::mutex m_mutex;
        std::condition_variable m_cv;
        std::deque<GatewayMessage> m_messages;
    };

    // Writes the gateway into the sandbox's /tmp and starts it with `env` in `home` (its default
    // context's folder); its Python kernel starts at once, so a first execution finds it warm.
    static Result<std::shared_ptr<KernelGateway>>
    start(std::shared_ptr<SessionLink> link, const std::string& home,
          const std::map<std::string, std::string>& env);
    ~KernelGateway();
    KernelGateway(const KernelGateway&) = delete;
    KernelGateway& operator=(const KernelGateway&) = delete;

    // False once its process ended (a later request starts another).
    bool alive() const;
    // Sends `request` (an op and its fields) under a new id; its answers go to the Call.
    Result<std::shared_ptr<Call>> call(nlohmann::json request);
    // The client of an execution went: the gateway drops it if it waits and interrupts its
    // kernel if it runs. The Call is forgotten.
    void cancel(const std::shared_ptr<Call>& call);
    void forget(const std::shared_ptr<Call>& call);

  private:
    KernelGateway(std::shared_ptr<SessionLink> link, std::shared_ptr<EventQueue> events);
    void readLoop();
    void dispatch(std::string_view line);
    void endAll(const std::string& why, bool sandboxGone = false);

    std::shared_ptr<SessionLink> m_link;
    std::shared_ptr<EventQueue> m_events;
    std::int64_t m_pid = 0;
    mutable std::mutex m_mutex;
    bool m_dead = false;
    bool m_stop = false;
    std::uint64_t m_nextId = 1;
    std::map<std::string, std::shared_ptr<Call>> m_calls;
    std::string m_pending; // a line not yet whole
    std::thread m_reader;
};

} // namespace sb::e2b
