// What one /execute of the code interpreter did, gathered from the lines it streams to the SDK,
// for the session's recording (execution_record, docs/protocol.md): the code, its context and
// execution count, stdout and stderr, each rich result as parts by MIME type and the error.
// Bounded as it is gathered: the supervisor bounds it again as the recording keeps it
// (recording/CodeExecution.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace sb::e2b {

class ExecutionTranscript {
  public:
    ExecutionTranscript(std::string code, std::string context, std::string language);
    // One execute line as the SDK reads it (executeLine()).
    void add(const nlohmann::json& line);
    // The execution_record's "execution".
    nlohmann::json record() const;

  private:
    void addText(std::string& into, const std::string& text);

    std::string m_code, m_context, m_language;
    std::string m_stdout, m_stderr;
    nlohmann::json m_results = nlohmann::json::array();
    nlohmann::json m_error;
    std::int64_t m_count = -1;
    std::size_t m_bytes = 0;   // of the results' parts kept
    std::size_t m_omitted = 0; // results past the number kept
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

// The MIME type of a result's field as the SDK names it ("png": "image/png", "data":
// "e2b/data"), empty for a field that is no format ("is_main_result", "extra").
std::string mimeOfResultField(const std::string& field);

} // namespace sb::e2b
