#include "supervision/TerminalPrompt.h"

#include <unistd.h>

namespace sb {
namespace {

std::string joinArgv(const std::vector<std::string>& argv)
{
    std::string out;
    for (const auto& a : argv)
        out += (out.empty() ? "" : " ") + a;
    return out;
}

} // namespace

std::string describeRequest(const ApprovalRequest& r)
{
    if (r.kind == ApprovalKind::Command)
        return "command " + joinArgv(r.argv) + " (" + r.program + " in " + r.cwd + ")";
    return "network " + r.host + ":" + std::to_string(r.port) + " (" + r.protocol + ")";
}

std::string TerminalPrompt::notice(std::size_t count)
{
    if (count == 0) return "\033]2;sandbench\007";
    return "\033]2;sandbench: " + std::to_string(count) + " approval" + (count == 1 ? "" : "s") +
           " pending, press Ctrl-] to answer\007\a";
}

void TerminalPrompt::write(const std::string& text) const
{
    const char* p = text.data();
    size_t left = text.size();
    while (left > 0) {
        ssize_t n = ::write(m_out, p, left);
        if (n <= 0 && errno != EINTR) return;
        if (n > 0) p += n, left -= static_cast<size_t>(n);
    }
}

void TerminalPrompt::open(const std::vector<ApprovalRequest>& pending, std::int64_t nowUnixMs)
{
    m_open = true;
    write("\033[?1049h\033[?25l"); // alternate screen, hidden cursor
    render(pending, nowUnixMs);
}

void TerminalPrompt::close()
{
    if (!m_open) return;
    m_open = false;
    write("\033[?25h\033[?1049l");
}

void TerminalPrompt::refresh(const std::vector<ApprovalRequest>& pending, std::int64_t nowUnixMs)
{
    if (m_open) render(pending, nowUnixMs);
}

void TerminalPrompt::render(const std::vector<ApprovalRequest>& pending, std::int64_t nowUnixMs)
{
    std::string s = "\033[H\033[2J\033[1mSandbench approvals\033[0m (the agent is paused while "
                    "this screen is open)\r\n\r\n";
    if (pending.empty()) s += "Nothing is waiting for an answer.\r\n";
    for (std::size_t i = 0; i < pending.size(); ++i) {
        const ApprovalRequest& r = pending[i];
        long long left = (r.deadlineUnixMs - nowUnixMs + 999) / 1000;
        s += (i == 0 ? "\033[7m>" : " ") + std::string(" #") + std::to_string(r.id) + "  " +
             describeRequest(r) + "\033[0m\r\n      asked by " + r.rule + ", " +
             std::to_string(left > 0 ? left : 0) + " s left\r\n";
    }
    if (!pending.empty()) {
        bool command = pending.front().kind == ApprovalKind::Command;
        s += std::string("\r\nFor #") + std::to_string(pending.front().id) +
             ":  [a] allow once   [s] allow " +
             (command ? "this program and subcommand" : "this host") +
             " for the session   [A] always allow that\r\n"
             "         [d] deny once    [D] always deny this exact " +
             (command ? "command" : "host and port") + "\r\n";
    }
    s += "\r\n[Esc] back to the agent   [Ctrl-]] send Ctrl-] to the agent\r\n";
    write(s);
}

std::string TerminalPrompt::handleKey(char key, const std::vector<ApprovalRequest>& pending)
{
    if (key == '\033' || key == 'q') {
        close();
        return {};
    }
    if (key == kPromptHotkey) {
        close();
        return std::string(1, kPromptHotkey);
    }
    if (pending.empty()) return {};
    const ApprovalRequest& r = pending.front();
    bool command = r.kind == ApprovalKind::Command;
    ApprovalAnswer answer;
    answer.answeredBy = "terminal";
    switch (key) {
    case 'a':
        answer = {true, command ? ApprovalScope::ExactCommand : ApprovalScope::HostPort,
                  ApprovalDuration::Once, "terminal"};
        break;
    case 's':
    case 'A':
        answer.allow = true;
        answer.scope =
            command ? (r.argv.size() > 1 ? ApprovalScope::Subcommand : ApprovalScope::AnyArguments)
                    : ApprovalScope::Host;
        answer.duration = key == 's' ? ApprovalDuration::Session : ApprovalDuration::Always;
        break;
    case 'd':
        answer = {false, command ? ApprovalScope::ExactCommand : ApprovalScope::HostPort,
                  ApprovalDuration::Once, "terminal"};
        break;
    case 'D':
        answer = {false, command ? ApprovalScope::ExactCommand : ApprovalScope::HostPort,
                  ApprovalDuration::Always, "terminal"};
        break;
    default:
        return {};
    }
    m_answer(r.id, answer);
    return {};
}

} // namespace sb
