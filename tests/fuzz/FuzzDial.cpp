// The dial stream (core/remote): what `sandbench-cli dial-stdio` reads from ssh on another
// host, and what `--host` reads back. Each input is the raw stream: the envelopes are decoded and
// must encode to the bytes they came from, then the whole input goes to a real dial server
// (sessions in a runtime folder of its own, relayed commands run /bin/true) until it ends.
#include "FuzzCheck.h"
#include "remote/DialServer.h"
#include "remote/Envelope.h"

#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using sbfuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static char runtimeDir[] = "/tmp/sandbench-fuzz-dial-XXXXXX";
    static const bool ready = [] {
        check(::mkdtemp(runtimeDir) != nullptr, "mkdtemp");
        std::atexit([] {
            std::error_code ignored;
            std::filesystem::remove_all(runtimeDir, ignored);
        });
        ::setenv("XDG_RUNTIME_DIR", runtimeDir, 1);
        return true;
    }();
    (void)ready;
    const std::string_view input(reinterpret_cast<const char*>(data), size);

    sb::remote::EnvelopeDecoder decoder;
    decoder.feed(input.substr(0, size / 2));
    decoder.feed(input.substr(size / 2));
    std::string again;
    sb::remote::Envelope envelope;
    for (;;) {
        auto got = decoder.next(envelope);
        if (!got || !*got) break;
        check(envelope.payload.size() <= sb::remote::kMaxEnvelopePayload, "payload size");
        again += sb::remote::encodeEnvelope(envelope.channel, envelope.payload);
        if (envelope.channel == sb::remote::kControlChannel)
            (void)sb::remote::parseControl(envelope.payload);
    }
    check(input.substr(0, again.size()) == again, "envelopes encode to the bytes they came from");

    int pair[2];
    check(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0, "socketpair");
    const int sink = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    check(sink >= 0, "open /dev/null");
    std::string_view rest = input;
    // The stream is written first and closed: the server reads it all, then sees its end.
    ::fcntl(pair[1], F_SETFL, O_NONBLOCK);
    while (!rest.empty()) {
        const ssize_t n = ::write(pair[1], rest.data(), rest.size());
        if (n <= 0) break; // more than the socket holds: the rest is not sent
        rest.remove_prefix(static_cast<std::size_t>(n));
    }
    ::close(pair[1]);
    (void)sb::remote::serveDial(pair[0], sink, {"/bin/true", "fuzz"});
    ::close(pair[0]);
    ::close(sink);
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    return 0;
}
