"""Files the command line writes after its work (a game's record, an arena's summary).

Each is checked before the work starts, so a wrong path costs nothing, and it is written only
when the work is done: an existing file is not emptied by a game that then fails, and a file
that cannot be written at the end (a full disk) is one readable error, not a traceback.
"""
import os
import stat
from typing import Optional, TextIO


class OutputError(RuntimeError):
    """A checked output file could not be written when the work was done (exit code 1: not
    the caller's mistake)."""


class OutputFile:
    """A file opened for appending now (which checks it can be written, creating it if it is
    missing, without emptying it) and replaced whole by `write`."""

    def __init__(self, path: str, what: str) -> None:
        if not isinstance(path, str) or not path:
            raise ValueError(f"the {what} file needs a name")
        self.path, self.what = path, what
        existed = os.path.lexists(path)
        try:
            self._file: Optional[TextIO] = open(path, "a", encoding="utf-8")
        except OSError as e:
            raise ValueError(f"cannot write the {what} file {path}: {e.strerror or e}") from None
        self._created = not existed
        self._written = False

    def write(self, text: str) -> None:
        """Replace what the file holds with `text` (a device or a pipe just gets the text)."""
        if self._file is None:
            raise ValueError(f"the {self.what} file {self.path} is closed")
        try:
            if stat.S_ISREG(os.fstat(self._file.fileno()).st_mode):
                self._file.seek(0)
                self._file.truncate()
            self._file.write(text)
            self._file.flush()
        except OSError as e:
            raise OutputError(f"cannot write the {self.what} file {self.path}: "
                              f"{e.strerror or e}") from None
        self._written = True

    def close(self) -> None:
        """Close the file; one this object created and never wrote is removed again."""
        if self._file is None:
            return
        try:
            self._file.close()
        except OSError:
            pass                          # its write already reported the failure
        self._file = None
        if self._created and not self._written:
            try:
                os.remove(self.path)
            except OSError:
                pass

    def __enter__(self) -> "OutputFile":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
