"""A minimal LSP client for the tests: starts mdh-lsp, frames JSON-RPC
messages, and collects what the server sends (responses by id,
notifications by method).  Used by the replay runner, the diagnostics
comparison and the fuzz test; standard library only."""
import json
import os
import select
import subprocess
import time


def file_uri(path):
    from urllib.parse import quote
    return "file://" + quote(os.path.abspath(path))


class Client:
    def __init__(self, server, args=(), cwd=None, env=None):
        # stderr goes to a file: a pipe nobody reads would block the server once full.
        import tempfile
        self.stderr_file = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([server, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr_file, cwd=cwd, env=env)
        self.buf = b""
        self.next_id = 1
        self.inbox = []  # messages received but not yet taken

    def stderr_text(self):
        self.stderr_file.seek(0)
        return self.stderr_file.read().decode(errors="replace")

    # ---- sending ---------------------------------------------------------------------
    def send_raw(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}})
        return rid

    def notify(self, method, params=None):
        self.send({"jsonrpc": "2.0", "method": method, "params": params or {}})

    # ---- receiving -------------------------------------------------------------------
    def _read_one(self, deadline):
        while True:
            head_end = self.buf.find(b"\r\n\r\n")
            if head_end >= 0:
                length = None
                for line in self.buf[:head_end].split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                if length is None:
                    raise RuntimeError("server sent a frame without Content-Length")
                if len(self.buf) >= head_end + 4 + length:
                    body = self.buf[head_end + 4:head_end + 4 + length]
                    self.buf = self.buf[head_end + 4 + length:]
                    return json.loads(body)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            r, _, _ = select.select([self.proc.stdout], [], [], remaining)
            if not r:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                raise EOFError("server closed its output")
            self.buf += chunk

    def wait_for(self, pred, timeout=10.0):
        """Returns (and removes) the first message satisfying pred."""
        for i, m in enumerate(self.inbox):
            if pred(m):
                return self.inbox.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_one(deadline)
            if m is None:
                raise TimeoutError("no matching message within %.1f s" % timeout)
            if pred(m):
                return m
            self.inbox.append(m)

    def response(self, rid, timeout=10.0):
        return self.wait_for(lambda m: m.get("id") == rid and "method" not in m, timeout)

    def call(self, method, params=None, timeout=10.0):
        return self.response(self.request(method, params), timeout)

    def notification(self, method, timeout=10.0, pred=None):
        return self.wait_for(lambda m: m.get("method") == method and "id" not in m and (pred is None or pred(m)),
                             timeout)

    # ---- lifecycle -------------------------------------------------------------------
    def initialize(self, root=None):
        r = self.call("initialize", {"processId": os.getpid(), "rootUri": file_uri(root) if root else None,
                                     "capabilities": {}})
        self.notify("initialized", {})
        return r

    def open(self, path, text=None, uri=None, version=1):
        if text is None:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        uri = uri or file_uri(path)
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "mdh", "version": version,
                                                              "text": text}})
        return uri

    def close(self, timeout=10.0):
        try:
            self.call("shutdown", timeout=timeout)
            self.notify("exit")
            return self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
