"""A test client for `caravan uci`: a subprocess with line reads that time out."""
from __future__ import annotations

import queue
import subprocess
import sys
import tempfile
import threading
import time
from typing import List, Optional


class Client:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "engine.cli", "uci"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=tempfile.gettempdir())
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def send(self, line, flush=True) -> None:
        data = line if isinstance(line, bytes) else (line + "\n").encode("utf-8")
        self.proc.stdin.write(data)
        if flush:
            self.proc.stdin.flush()

    def read(self, timeout: float = 30.0) -> str:
        line = self.lines.get(timeout=timeout)
        if line is None:
            raise EOFError("the engine closed its output")
        return line

    def until(self, prefix: str, timeout: float = 60.0) -> List[str]:
        """Lines up to and including the first that starts with `prefix`."""
        out = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.read(max(0.01, deadline - time.monotonic()))
            out.append(line)
            if line.startswith(prefix):
                return out

    def ask(self, line: str, prefix: str, timeout: float = 60.0) -> List[str]:
        self.send(line)
        return self.until(prefix, timeout)

    def no_output(self, wait: float = 0.2) -> bool:
        try:
            line = self.lines.get(timeout=wait)
        except queue.Empty:
            return True
        self.lines.put(line)
        return False

    def close(self) -> int:
        try:
            self.send("quit")
        except (BrokenPipeError, OSError):
            pass
        return self.proc.wait(timeout=30)
