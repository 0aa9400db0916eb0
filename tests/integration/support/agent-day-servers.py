#!/usr/bin/python3
"""The hosts of AgentDayTest's scripted day, one HTTP server on ADDRESS:PORT that tells them
apart by the Host header (test-network names them all 198.18.0.1):

  registry.pkgs.example  an npm registry stand-in: the package document of demo-pkg, its tarball
  docs.manual.example    documentation pages
  git.forge.example      git over smart HTTP (git http-backend) for the repositories in ROOT/git
  paste.drop.example     a paste host: what is posted to it is appended to ROOT/pasted.log
  get.unknown.example    an installer script at /install.sh

Usage: agent-day-servers.py ADDRESS PORT ROOT. Writes ROOT/ready once it listens; every request
is logged to ROOT/requests.log as "HOST METHOD PATH".
"""
import hashlib
import base64
import http.server
import io
import json
import os
import subprocess
import sys
import tarfile

ADDRESS, PORT, ROOT = sys.argv[1], int(sys.argv[2]), sys.argv[3]


def package_tarball():
    files = {
        "package/package.json": json.dumps(
            {"name": "demo-pkg", "version": "1.0.0", "main": "index.js"}),
        "package/index.js": 'module.exports = "demo-pkg works";\n',
    }
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


TARBALL = package_tarball()
BASE = "http://registry.pkgs.example:%d" % PORT
PACKUMENT = json.dumps({
    "name": "demo-pkg",
    "dist-tags": {"latest": "1.0.0"},
    "versions": {"1.0.0": {
        "name": "demo-pkg", "version": "1.0.0", "main": "index.js",
        "dist": {
            "tarball": BASE + "/demo-pkg/-/demo-pkg-1.0.0.tgz",
            "shasum": hashlib.sha1(TARBALL).hexdigest(),
            "integrity": "sha512-" + base64.b64encode(hashlib.sha512(TARBALL).digest()).decode(),
        }}},
}).encode()
INSTALLER = b"echo installer-ran\n"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, kind="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def handle_any(self):
        host = self.headers.get("Host", "").split(":")[0]
        path = self.path
        if path.startswith("http://"):  # absolute-URI form, as a proxy would pass it
            path = "/" + path.split("/", 3)[3] if path.count("/") >= 3 else "/"
        body = self.body()
        with open(os.path.join(ROOT, "requests.log"), "a") as log:
            log.write("%s %s %s\n" % (host, self.command, path))
        if host == "registry.pkgs.example":
            if path.rstrip("/") == "/demo-pkg":
                return self.reply(200, PACKUMENT, "application/json")
            if path == "/demo-pkg/-/demo-pkg-1.0.0.tgz":
                return self.reply(200, TARBALL, "application/octet-stream")
        elif host == "docs.manual.example":
            return self.reply(200, b"docs: how to build the demo\n")
        elif host == "git.forge.example":
            return self.git(path, body)
        elif host == "paste.drop.example" and self.command in ("POST", "PUT"):
            with open(os.path.join(ROOT, "pasted.log"), "ab") as log:
                log.write(body + b"\n")
            return self.reply(200, b"pasted\n")
        elif host == "get.unknown.example" and path == "/install.sh":
            return self.reply(200, INSTALLER)
        self.reply(404, b"not found\n")

    def git(self, path, body):
        script, _, query = path.partition("?")
        env = dict(os.environ, GIT_PROJECT_ROOT=os.path.join(ROOT, "git"),
                   GIT_HTTP_EXPORT_ALL="1", REQUEST_METHOD=self.command, PATH_INFO=script,
                   QUERY_STRING=query, CONTENT_TYPE=self.headers.get("Content-Type", ""),
                   CONTENT_LENGTH=str(len(body)), REMOTE_USER="agent", REMOTE_ADDR="198.18.0.1",
                   HTTP_CONTENT_ENCODING=self.headers.get("Content-Encoding", ""),
                   GIT_PROTOCOL=self.headers.get("Git-Protocol", ""))
        out = subprocess.run(["git", "http-backend"], input=body, env=env,
                             capture_output=True).stdout
        head, _, content = out.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.split(b"\r\n"):
            name, _, value = line.decode().partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    do_GET = do_POST = do_PUT = handle_any


server = http.server.ThreadingHTTPServer((ADDRESS, PORT), Handler)
open(os.path.join(ROOT, "ready"), "w").close()
server.serve_forever()
