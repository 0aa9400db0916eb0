#include "FakeModelApi.h"

#include <fstream>

namespace sbit {

namespace {

const char* kScript = R"PY(
import http.server, json, os, ssl, sys, threading, time
host, port, cert, key, log = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]

class Api(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def key(self):
        k = self.headers.get("x-api-key") or self.headers.get("authorization", "")
        k = k[7:] if k.startswith("Bearer ") else k
        with open(log, "a") as f:
            f.write(k + "\n")
        return k
    def reply(self, body, kind="application/json"):
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def chunk(self, text):
        data = text.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
    def do_GET(self):
        k = self.key()
        if self.path == "/echo-encoding":
            self.reply("accept-encoding: " + self.headers.get("accept-encoding", "") + "\n",
                       "text/plain")
            return
        self.reply("your key: " + k + "\n", "text/plain")
    def do_POST(self):
        self.key()
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        model = body.get("model", "unknown")
        openai = self.path.endswith("/chat/completions")
        if not body.get("stream"):
            if openai:
                self.reply(json.dumps({"id": "c1", "object": "chat.completion", "model": model,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25,
                              "prompt_tokens_details": {"cached_tokens": 4}}}))
            else:
                self.reply(json.dumps({"id": "msg_1", "type": "message", "role": "assistant",
                    "model": model, "content": [{"type": "text", "text": "hi"}],
                    "stop_reason": "end_turn",
                    "usage": {"input_tokens": 11, "output_tokens": 7,
                              "cache_read_input_tokens": 3, "cache_creation_input_tokens": 2}}))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        events = [
            ("message_start", {"type": "message_start", "message": {"id": "msg_2",
                "type": "message", "role": "assistant", "model": model, "content": [],
                "usage": {"input_tokens": 13, "output_tokens": 1, "cache_read_input_tokens": 0,
                          "cache_creation_input_tokens": 0}}}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": "hello"}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 9}}),
            ("message_stop", {"type": "message_stop"}),
        ]
        for name, data in events:
            self.chunk("event: %s\ndata: %s\n\n" % (name, json.dumps(data)))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

# Gone with the script that started it, even where its `kill` never comes (a test that failed).
def orphaned(parent=os.getppid()):
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)
threading.Thread(target=orphaned, daemon=True).start()

server = http.server.ThreadingHTTPServer((host, port), Api)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
)PY";

} // namespace

std::filesystem::path writeFakeModelApi(const std::filesystem::path& dir)
{
    const auto path = dir / "fake_model_api.py";
    std::ofstream(path) << kScript;
    return path;
}

std::string startFakeModelApi(const std::filesystem::path& dir, const std::string& address,
                              int port, const std::string& cert, const std::string& key,
                              const std::filesystem::path& log)
{
    return "python3 " + writeFakeModelApi(dir).string() + " " + address + " " +
           std::to_string(port) + " " + cert + " " + key + " " + log.string() +
           " > api.port 2> api.err &\n"
           "api=$!\n"
           "for i in $(seq 100); do [ -s api.port ] && break; sleep 0.1; done\n";
}

} // namespace sbit
