// One execution of a code interpreter's code (E2B's `runCode`, docs/e2b.md) as a session records
// it: the code, its context and execution count, what it printed, its rich results (each a list
// of parts, one per MIME type of the kernel's bundle: PNG/JPEG/SVG charts, HTML, text, JSON,
// DataFrame data) and its error with traceback. `serve` sends it over the control protocol
// (execution_record, docs/protocol.md); the supervisor checks and bounds it here before it
// becomes the activity event "execution" and the recorded event code_execution
// (docs/recording.md). What it checks came from inside the sandbox: outside input.
#pragma once

#include "base/Error.h"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace sb {

// How much of one execution a recording keeps. What is over a limit is cut (texts: "truncated"
// with the original "bytes") or left out (pictures, JSON, whole results: "omitted" with the
// reason), and says so; nothing is dropped silently.
struct ExecutionLimits {
    std::size_t code = 256 * 1024;       // the code, and each of stdout and stderr
    std::size_t part = 2 * 1024 * 1024;  // one part (base64 text counted as sent)
    std::size_t total = 4 * 1024 * 1024; // all parts of all results together
    std::size_t results = 64;            // results of one execution
    std::size_t traceback = 64 * 1024;   // the error's traceback (and its name and value)
};

// The recorded event from an execution_record's "execution" object: every field checked
// (an InvalidInput naming the first one that is wrong), texts made valid UTF-8, sizes bounded by
// `limits`; "kind": "execution" added.
Result<nlohmann::json> recordedExecution(const nlohmann::json& execution,
                                         const ExecutionLimits& limits = {});

// Whether a part's MIME type holds bytes (base64 in the record: pictures, PDF), JSON (an object
// or array: application/json, E2B's DataFrame data and chart) or text (the rest).
enum class PartEncoding { Base64, Json, Text };
PartEncoding partEncoding(std::string_view mime);

} // namespace sb
