"""A small Language Server Protocol client over a child's stdin and stdout, for the tests
of `pamc lsp` (run_lsp.py) and its latency benchmark (tests/bench/lsp_bench.py)."""
import json
import os
import subprocess
import threading
import queue
import time


class Client:
    def __init__(self, command, cwd=None):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd)
        self.next_id = 0
        self.inbox = queue.Queue()
        self.notifications = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.decode().strip()
                if not line:
                    break
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
            body = out.read(int(headers["content-length"]))
            self.inbox.put(json.loads(body))

    def send(self, message):
        message = dict(message, jsonrpc="2.0")
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def request(self, method, params, timeout=30):
        """The response to one request (notifications that arrive meanwhile are kept)."""
        self.next_id += 1
        rid = self.next_id
        self.send({"id": rid, "method": method, "params": params})
        deadline = time.time() + timeout
        while True:
            m = self._get(deadline, method)
            if m.get("id") == rid and "method" not in m:
                return m

    def _get(self, deadline, what):
        try:
            m = self.inbox.get(timeout=max(0.01, deadline - time.time()))
        except queue.Empty:
            raise AssertionError("no answer to %s in time" % what)
        if m is None:
            raise AssertionError("the server closed its output waiting for %s (stderr: %s)"
                                 % (what, self.proc.stderr.read().decode()[-2000:]))
        if "method" in m and "id" not in m:
            self.notifications.append(m)
        return m

    def diagnostics(self, uri, timeout=30, predicate=None):
        """The first publishDiagnostics for uri since the last clear() whose list satisfies
        predicate (any list when None)."""
        deadline = time.time() + timeout
        while True:
            for n in self.notifications:
                if n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri:
                    if predicate is None or predicate(n["params"]["diagnostics"]):
                        return n["params"]["diagnostics"]
            self._get(deadline, "diagnostics of " + uri)

    def drain(self, seconds):
        """Keeps the notifications that arrive within `seconds`."""
        deadline = time.time() + seconds
        while True:
            try:
                m = self.inbox.get(timeout=max(0.001, deadline - time.time()))
            except queue.Empty:
                return
            if m is None:
                return
            if "method" in m and "id" not in m:
                self.notifications.append(m)

    def clear(self):
        self.notifications = []

    def close(self):
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            return self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def uri(path):
    return "file://" + os.path.abspath(path)


def initialize(client, root, options=None):
    return client.request("initialize", {"processId": os.getpid(), "rootUri": uri(root),
                                         "capabilities": {}, "initializationOptions": options or {}})
