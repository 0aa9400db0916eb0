// A gzip-encoded request body decoded as it arrives (E2B's `gzip: true` uploads), with a bound
// on what it decodes to, so that a small body cannot become an unbounded file.
#pragma once

#include "base/Error.h"

#include <functional>
#include <memory>
#include <string_view>

namespace sb::e2b {

class Gunzip {
  public:
    // Each decoded piece goes to `sink` (false stops); more than `limit` bytes is an error.
    static Result<std::unique_ptr<Gunzip>> open(std::function<Status(std::string_view)> sink,
                                                std::size_t limit);
    ~Gunzip();
    Gunzip(const Gunzip&) = delete;
    Gunzip& operator=(const Gunzip&) = delete;

    Status feed(std::string_view bytes);
    // The body ended: an error unless the gzip stream ended too.
    Status finish();

  private:
    Gunzip() = default;
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace sb::e2b
