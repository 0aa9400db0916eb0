#include "remote/Envelope.h"

#include <cstdint>

namespace sb::remote {

namespace {

void putU32(std::string& out, std::uint32_t value)
{
    for (int i = 0; i < 4; ++i)
        out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint32_t getU32(const char* p)
{
    std::uint32_t value = 0;
    for (int i = 3; i >= 0; --i)
        value = (value << 8) | static_cast<unsigned char>(p[i]);
    return value;
}

} // namespace

void appendEnvelope(std::string& out, std::uint32_t channel, std::string_view payload)
{
    putU32(out, channel);
    putU32(out, static_cast<std::uint32_t>(payload.size()));
    out.append(payload);
}

std::string encodeEnvelope(std::uint32_t channel, std::string_view payload)
{
    std::string out;
    out.reserve(kEnvelopeHeaderBytes + payload.size());
    appendEnvelope(out, channel, payload);
    return out;
}

std::string encodeControl(const nlohmann::json& message)
{
    return encodeEnvelope(kControlChannel, message.dump());
}

void EnvelopeDecoder::feed(std::string_view bytes)
{
    // Drop what was consumed before it grows: the buffer holds at most one partial envelope
    // plus what one read brought.
    if (m_pos > 0 && m_pos >= m_buf.size() / 2) {
        m_buf.erase(0, m_pos);
        m_pos = 0;
    }
    m_buf.append(bytes);
}

Result<bool> EnvelopeDecoder::next(Envelope& out)
{
    if (buffered() < kEnvelopeHeaderBytes) return false;
    const char* head = m_buf.data() + m_pos;
    const std::uint32_t channel = getU32(head);
    const std::size_t length = getU32(head + 4);
    if (length > kMaxEnvelopePayload)
        return inputError("dial stream: an envelope of " + std::to_string(length) +
                          " bytes on channel " + std::to_string(channel) + " (at most " +
                          std::to_string(kMaxEnvelopePayload) + ")");
    if (buffered() < kEnvelopeHeaderBytes + length) return false;
    out.channel = channel;
    out.payload.assign(head + kEnvelopeHeaderBytes, length);
    m_pos += kEnvelopeHeaderBytes + length;
    if (m_pos == m_buf.size()) {
        m_buf.clear();
        m_pos = 0;
    }
    return true;
}

std::uint32_t fieldU32(const nlohmann::json& message, const char* key, std::uint32_t fallback)
{
    auto it = message.find(key);
    if (it == message.end() || !it->is_number_unsigned() || it->get<std::uint64_t>() > UINT32_MAX)
        return fallback;
    return static_cast<std::uint32_t>(it->get<std::uint64_t>());
}

std::int64_t fieldInt(const nlohmann::json& message, const char* key, std::int64_t fallback)
{
    auto it = message.find(key);
    if (it == message.end() || !it->is_number_integer()) return fallback;
    return it->get<std::int64_t>();
}

std::string fieldString(const nlohmann::json& message, const char* key, const std::string& fallback)
{
    auto it = message.find(key);
    if (it == message.end() || !it->is_string()) return fallback;
    return it->get<std::string>();
}

Result<nlohmann::json> parseControl(std::string_view payload)
{
    nlohmann::json message = nlohmann::json::parse(payload, nullptr, false);
    if (message.is_discarded() || !message.is_object())
        return inputError("dial stream: a control message that is not a JSON object");
    auto op = message.find("op");
    if (op == message.end() || !op->is_string())
        return inputError("dial stream: a control message without a string \"op\"");
    return message;
}

} // namespace sb::remote
