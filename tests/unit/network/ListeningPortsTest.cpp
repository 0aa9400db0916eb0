#include "network/ListeningPorts.h"

#include <gtest/gtest.h>
#include <unistd.h>

using sb::ListeningPort;
using sb::parseListeningPorts;

TEST(ListeningPorts, OnlyListeningSocketsWithTheirAddresses)
{
    // As the kernel writes them: a header, then one socket a line; state 0A is LISTEN.
    const std::string tcp =
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
        "timeout inode\n"
        "   0: 0100007F:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000 0 1 1 "
        "0 100 0 0 10 0\n"
        "   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0 0 2\n"
        "   2: 0100007F:1F40 0100007F:D2A4 01 00000000:00000000 00:00000000 00000000  1000 0 3\n";
    EXPECT_EQ(parseListeningPorts(tcp, false),
              (std::vector<ListeningPort>{{8000, "127.0.0.1"}, {22, "0.0.0.0"}}));
    const std::string tcp6 =
        "  sl  local_address                         remote_address                        st\n"
        "   0: 00000000000000000000000001000000:0BB8 00000000000000000000000000000000:0000 0A "
        "00000000:00000000 00:00000000 00000000  1000 0 4\n"
        "   1: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A "
        "00000000:00000000 00:00000000 00000000  1000 0 5\n";
    EXPECT_EQ(parseListeningPorts(tcp6, true),
              (std::vector<ListeningPort>{{3000, "::1"}, {8080, "::"}}));
}

TEST(ListeningPorts, LinesTheKernelWouldNotWriteAreSkipped)
{
    const std::string odd = "garbage\n"
                            "   0: 0100007F:XYZW 00000000:0000 0A\n" // not hex
                            "   1: 0100007F 00000000:0000 0A\n"      // no port
                            "   2: 01007F:1F40 00000000:0000 0A\n"   // short address
                            "   3: 0100007F:0000 00000000:0000 0A\n" // port 0
                            "   4: 0100007F:1F40 00000000:0000 0A";  // last line, no newline
    EXPECT_EQ(parseListeningPorts(odd, false), (std::vector<ListeningPort>{{8000, "127.0.0.1"}}));
    EXPECT_TRUE(parseListeningPorts("", false).empty());
}

TEST(ListeningPorts, OfThisProcesssNamespace)
{
    auto ports = sb::listeningPorts(::getpid());
    ASSERT_TRUE(ports) << ports.error().describe();
}
