#include "network/JsonPicker.h"

namespace sb {
namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

} // namespace

JsonPicker::JsonPicker(std::vector<std::vector<std::string>> paths, std::size_t valueCap)
    : m_paths(std::move(paths)), m_cap(valueCap), m_found(m_paths.size())
{
}

void JsonPicker::reset()
{
    m_state = State::Value;
    m_stringIsKey = m_escape = false;
    m_stack.clear();
    m_capturing.reset();
    m_capture.clear();
    for (auto& found : m_found)
        found.reset();
}

void JsonPicker::feed(std::string_view bytes)
{
    for (char c : bytes) {
        if (m_state == State::Stopped || m_state == State::End) return;
        if (m_capturing) {
            m_capture += c;
            if (m_capture.size() > m_cap) { // too large to pick: given up, the walk goes on
                m_capturing.reset();
                m_capture.clear();
            }
        }
        step(c);
    }
}

void JsonPicker::step(char c)
{
    switch (m_state) {
    case State::String:
        if (m_escape) {
            m_escape = false;
        } else if (c == '\\') {
            m_escape = true;
        } else if (c == '"') {
            if (m_stringIsKey) {
                m_state = State::Colon;
            } else {
                endValue();
            }
            return;
        }
        if (m_stringIsKey) {
            Frame& f = m_stack.back();
            if (f.key.size() < kMaxKey) {
                f.key += c;
            } else {
                f.keyTooLong = true;
            }
        }
        return;
    case State::Scalar:
        if (!isSpace(c) && c != ',' && c != '}' && c != ']') return;
        // The byte after a number or literal ends it and belongs to what follows.
        if (m_capturing && m_stack.size() == m_captureDepth) m_capture.pop_back();
        endValue();
        if (m_state == State::AfterValue) step(c);
        return;
    case State::Value:
        if (!isSpace(c)) startValue(c);
        return;
    case State::Key:
        if (isSpace(c)) return;
        if (c == '"') {
            m_stack.back().key.clear();
            m_stack.back().keyTooLong = false;
            m_stringIsKey = true;
            m_state = State::String;
        } else if (c == '}') {
            close(c);
        } else {
            m_state = State::Stopped;
        }
        return;
    case State::Colon:
        if (isSpace(c)) return;
        m_state = c == ':' ? State::Value : State::Stopped;
        return;
    case State::AfterValue:
        if (isSpace(c)) return;
        if (c == ',') {
            m_state = m_stack.back().object ? State::Key : State::Value;
        } else if (c == '}' || c == ']') {
            close(c);
        } else {
            m_state = State::Stopped;
        }
        return;
    case State::End:
    case State::Stopped:
        return;
    }
}

void JsonPicker::startValue(char c)
{
    if (c == ']' && !m_stack.empty() && !m_stack.back().object) { // an empty array
        close(c);
        return;
    }
    if (c == '}' || c == ']' || c == ',' || c == ':') {
        m_state = State::Stopped;
        return;
    }
    if (!m_capturing)
        if (auto wanted = wantedHere()) {
            m_capturing = wanted;
            m_captureDepth = m_stack.size();
            m_capture.assign(1, c);
        }
    if (c == '{' || c == '[') {
        if (m_stack.size() >= kMaxDepth) {
            m_state = State::Stopped;
            return;
        }
        m_stack.push_back({c == '{', false, {}});
        m_state = c == '{' ? State::Key : State::Value;
    } else if (c == '"') {
        m_stringIsKey = false;
        m_state = State::String;
    } else {
        m_state = State::Scalar;
    }
}

void JsonPicker::close(char c)
{
    if (m_stack.empty() || m_stack.back().object != (c == '}')) {
        m_state = State::Stopped;
        return;
    }
    m_stack.pop_back();
    endValue();
}

void JsonPicker::endValue()
{
    if (m_capturing && m_stack.size() == m_captureDepth) finishCapture();
    m_state = m_stack.empty() ? State::End : State::AfterValue;
}

std::optional<std::size_t> JsonPicker::wantedHere() const
{
    for (std::size_t i = 0; i < m_paths.size(); ++i) {
        const auto& path = m_paths[i];
        if (path.size() != m_stack.size()) continue;
        bool here = true;
        for (std::size_t k = 0; here && k < path.size(); ++k)
            here = m_stack[k].object && !m_stack[k].keyTooLong && m_stack[k].key == path[k];
        if (here) return i;
    }
    return std::nullopt;
}

void JsonPicker::finishCapture()
{
    m_found[*m_capturing] = std::move(m_capture);
    m_capture.clear();
    m_capturing.reset();
}

std::optional<nlohmann::json> JsonPicker::value(std::size_t index) const
{
    if (index >= m_found.size() || !m_found[index]) return std::nullopt;
    auto j = nlohmann::json::parse(*m_found[index], nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    return j;
}

std::optional<std::string> JsonPicker::string(std::size_t index) const
{
    auto j = value(index);
    if (!j || !j->is_string()) return std::nullopt;
    return j->get<std::string>();
}

} // namespace sb
