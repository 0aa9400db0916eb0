// Answering approvals from the terminal that runs `sandbench-cli run`, without a GUI and without
// corrupting the agent's screen.
//
// While a request is pending, the window title says so and the bell rings once, both written
// only between the agent's output chunks when its output is quiet. The hotkey (Ctrl-]) opens an
// approval screen on the terminal's alternate screen; while it is open the agent's output is not
// read (the agent pauses on a full pty), so nothing is lost or interleaved. Closing it restores
// the agent's screen and nudges the agent to redraw (a window-size change).
#pragma once

#include "policy/Approval.h"

#include <functional>
#include <string>
#include <vector>

namespace sb {

constexpr char kPromptHotkey = 0x1d; // Ctrl-]

class TerminalPrompt {
  public:
    using Answer = std::function<void(std::uint64_t id, const ApprovalAnswer&)>;
    TerminalPrompt(int outFd, Answer answer) : m_out(outFd), m_answer(std::move(answer)) {}

    bool isOpen() const { return m_open; }
    void open(const std::vector<ApprovalRequest>& pending, std::int64_t nowUnixMs);
    void close();
    // A key typed while open. Returns bytes to pass to the agent (Ctrl-] twice sends one).
    std::string handleKey(char key, const std::vector<ApprovalRequest>& pending);
    // Redraws (countdowns, new or finished requests) while open.
    void refresh(const std::vector<ApprovalRequest>& pending, std::int64_t nowUnixMs);

    // The title + bell notice for `count` pending requests (0 clears the title).
    static std::string notice(std::size_t count);

  private:
    void render(const std::vector<ApprovalRequest>& pending, std::int64_t nowUnixMs);
    void write(const std::string& text) const;

    int m_out;
    Answer m_answer;
    bool m_open = false;
};

// One line for logs and notices: "command git push origin (in /p)" or "network example.com:443
// (connect)".
std::string describeRequest(const ApprovalRequest& request);

} // namespace sb
