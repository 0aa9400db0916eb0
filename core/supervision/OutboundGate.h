// What the supervisor makes of a connect or send the sandbox's filter stopped (OutboundCall,
// in a supervised network): a call that stays inside the sandbox (another socket family, its
// own loopback) goes on at once; one that would open a connection or send a datagram to an
// address outside becomes an OutboundAttempt, which the proxy answers (Proxy::screen).
#pragma once

#include "network/Proxy.h"
#include "supervision/ExecInterceptor.h"

#include <optional>

namespace sb {

// nullopt: let the call go on. Where the socket cannot be looked at (the process is gone or
// the descriptor is not a socket) the call goes on too, and the kernel, the firewall and the
// proxy say what they say about it.
std::optional<OutboundAttempt> outboundAttempt(const OutboundCall& call);

} // namespace sb
