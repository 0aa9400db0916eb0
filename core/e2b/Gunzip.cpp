#include "e2b/Gunzip.h"

#include "base/ZlibLibrary.h"

#include <string>

namespace sb::e2b {

struct Gunzip::State {
    const ZlibLibrary* z = nullptr;
    z_stream stream{};
    bool open = false, ended = false;
    std::function<Status(std::string_view)> sink;
    std::size_t limit = 0, total = 0;
};

Result<std::unique_ptr<Gunzip>> Gunzip::open(std::function<Status(std::string_view)> sink,
                                             std::size_t limit)
{
    auto z = loadZlib();
    if (!z) return z.error().within("decode a gzip-encoded upload");
    std::unique_ptr<Gunzip> g(new Gunzip);
    g->m_state = std::make_unique<State>();
    State& s = *g->m_state;
    s.z = *z;
    s.sink = std::move(sink);
    s.limit = limit;
    // 16 + 15: a gzip header and trailer around the deflate stream, the largest window.
    if (s.z->inflateInit2_(&s.stream, 16 + MAX_WBITS, ZLIB_VERSION,
                           static_cast<int>(sizeof(z_stream))) != Z_OK)
        return Error{ErrorCode::Internal, 0, "zlib could not start decoding"};
    s.open = true;
    return g;
}

Gunzip::~Gunzip()
{
    if (m_state && m_state->open) m_state->z->inflateEnd(&m_state->stream);
}

Status Gunzip::feed(std::string_view bytes)
{
    State& s = *m_state;
    if (s.ended) {
        if (bytes.empty()) return {};
        return inputError("the upload has bytes after the end of its gzip stream");
    }
    std::string out(64 * 1024, '\0');
    s.stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    s.stream.avail_in = static_cast<uInt>(bytes.size());
    do {
        s.stream.next_out = reinterpret_cast<Bytef*>(out.data());
        s.stream.avail_out = static_cast<uInt>(out.size());
        const int rc = s.z->inflate(&s.stream, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
            return inputError("the upload is not valid gzip" +
                              std::string(s.stream.msg != nullptr ? ": " : "") +
                              (s.stream.msg != nullptr ? s.stream.msg : ""));
        const std::size_t produced = out.size() - s.stream.avail_out;
        s.total += produced;
        if (s.total > s.limit)
            return inputError("the upload is larger than " + std::to_string(s.limit) +
                              " bytes once decoded");
        if (produced > 0)
            if (auto e = s.sink(std::string_view(out).substr(0, produced))) return e;
        if (rc == Z_STREAM_END) {
            s.ended = true;
            if (s.stream.avail_in > 0)
                return inputError("the upload has bytes after the end of its gzip stream");
            return {};
        }
        if (rc == Z_BUF_ERROR && s.stream.avail_in == 0) break; // needs more input
    } while (s.stream.avail_in > 0 || s.stream.avail_out == 0);
    return {};
}

Status Gunzip::finish()
{
    if (!m_state->ended) return inputError("the upload's gzip stream is cut short");
    return {};
}

} // namespace sb::e2b
