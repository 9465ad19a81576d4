"""Where hands come from: files, folders (recursive), ``.zip`` archives and ``.gz`` files.

:func:`expand` turns the paths a user gives into :class:`SourceRef` records,
one per history file (an archive member is a file of its own), without reading
them.  A path may be an fsspec URL (``s3://bucket/archive/``, ``file:///data/x.phhs``):
a folder URL is searched as a folder is, and its files are read through fsspec.
:func:`open_source` opens one as a binary stream that counts what it
yields and stops at the :class:`Limits`, so a hostile upload (a zip bomb, a
huge file, a member named ``../../etc/passwd``) fails that one source with a
:class:`~analytics.warehouse.errors.SourceLimitError` instead of exhausting the
machine.  Nothing is ever extracted to disk.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import stat
import threading
import zipfile
import zlib
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Final, Literal, cast

from analytics.warehouse.errors import SourceError, SourceLimitError
from analytics.warehouse.urls import url_filesystem
from parsers.build import escape_controls
from parsers.foreign import HEAD_BYTES

__all__ = [
    "HISTORY_SUFFIXES",
    "BoundedReader",
    "Limits",
    "SourceRef",
    "content_digest",
    "expand",
    "is_url",
    "open_source",
    "read_head",
    "read_range",
    "release_archives",
    "shown_path",
]

HISTORY_SUFFIXES: Final = (".phh", ".phhs")
"""Suffixes of history files found in folders and archives."""

_GIB: Final = 1024**3
_MIB: Final = 1024**2


@dataclass(frozen=True, slots=True)
class Limits:
    """Safety limits on what one source may expand to.

    The defaults suit trusted files on the command line; the dashboard's upload
    path should pass tighter ones.  ``max_ratio`` allows small files more slack
    (``ratio_floor`` bytes) because tiny inputs legitimately compress very well.
    """

    max_file_bytes: int = 16 * _GIB
    max_uncompressed_bytes: int = 16 * _GIB
    max_ratio: float = 100.0
    ratio_floor: int = 16 * _MIB
    max_members: int = 100_000


SourceKind = Literal["file", "gzip", "zip"]


@dataclass(frozen=True, slots=True)
class SourceRef:
    """One history file to load: a plain file, a gzip file, or a member of a zip archive.

    ``name`` is what the warehouse records as the file (``games.zip:day1.phhs`` for a
    member); ``problem`` is set when the source must not be read (unsafe name,
    declared sizes over the limits).
    """

    kind: SourceKind
    path: str
    member: str | None = None
    size: int = 0
    problem: str | None = None
    label: str | None = None
    """Shown and stored instead of ``path`` (an upload's original name, not its temp path)."""
    skipped: str | None = None
    """Why the source is left unread on purpose (a symbolic link inside a folder or an
    archive, a named pipe, socket or device inside a folder); the ingest names it in its
    summary as skipped."""
    follow: bool = True
    """Whether the file at ``path`` may be opened through a symbolic link: True for a path
    given itself, False for one found in a folder (opened with ``O_NOFOLLOW``, so a file
    swapped for a link after the folder was listed is not read either)."""

    @property
    def name(self) -> str:
        """The source's name as shown and stored (:func:`shown_path`: valid UTF-8)."""
        shown = self.path if self.label is None else self.label
        return shown_path(f"{shown}:{self.member}" if self.member is not None else shown)


def shown_path(path: str) -> str:
    """``path`` as text that can be printed and stored (valid UTF-8): each byte of a file
    name that is not UTF-8 (which Python holds as a lone surrogate, ``os.fsdecode``) as
    ``\\xff``, any other lone surrogate as ``\\udcff``, a control character as ``\\x1b``
    (an escape sequence in a name was acted on by the terminal printing it).

    A folder may hold a file whose name is not UTF-8; as it was, the name reached DuckDB,
    which refused it, and the whole ingest stopped.  The same path always gives the same
    text, so the file is named alike in every run (its content says whether it is loaded).
    """
    try:
        data = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file name decodes to: an upload's, say
        return escape_controls(path.encode("utf-8", "backslashreplace").decode("utf-8"))
    return escape_controls(data.decode("utf-8", "backslashreplace"))


_LOCAL_SCHEMES: Final = ("file://", "local://")


def is_url(text: str) -> bool:
    """Whether ``text`` names a file by a URL of a filesystem other than the local one
    (``s3://...``); a ``file://`` URL and a plain path are local."""
    return "://" in text and not text.startswith(_LOCAL_SCHEMES)


def _is_history(name: str) -> bool:
    return name.lower().endswith(HISTORY_SUFFIXES)


def _unsafe_member(name: str) -> str | None:
    """Why an archive member's name is unsafe, or None.  We never extract, but the
    name is stored and shown, and the dashboard might one day save uploads."""
    if "\x00" in name or "\\" in name:
        return "the name holds a NUL byte or a backslash"
    pure = PurePosixPath(name)
    if pure.is_absolute() or (len(name) > 1 and name[1] == ":"):
        return "the name is an absolute path"
    if ".." in pure.parts:
        return "the name climbs out of the archive ('..')"
    return None


_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)


def _open_binary(path: str, follow: bool) -> IO[bytes]:
    """``path`` opened for reading bytes (a URL through fsspec); with ``follow`` False, not
    through a symbolic link (``O_NOFOLLOW``: a link raises OSError).

    A local file is opened without blocking and must be a regular file, or
    :class:`SourceError`: a named pipe put in place of a listed file would otherwise hang
    the ingest at the open (no writer) or the read, and a device read endlessly."""
    if is_url(path):
        fs, inner = url_filesystem(path)
        return cast(IO[bytes], fs.open(inner, "rb"))
    flags = os.O_RDONLY | _NONBLOCK | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    descriptor = os.open(path, flags)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise SourceError(f"{shown_path(path)}: {_not_regular(mode)}: not read")
        if _NONBLOCK:
            os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return os.fdopen(descriptor, "rb")


def _not_regular(mode: int) -> str:
    """What a file of ``mode`` that is neither a regular file nor a folder is, in words."""
    kinds = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    what = next((words for test, words in kinds if test(mode)), "a special file")
    return f"{what}, not a regular file"


def _zip_members(path: str, limits: Limits, follow: bool = True) -> list[SourceRef]:
    try:
        with _open_binary(path, follow) as raw, zipfile.ZipFile(raw) as archive:
            entries = len(archive.infolist())  # folders too: each costs its index's reading
            infos = [info for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, OSError, UnicodeDecodeError, SourceError) as error:
        # UnicodeDecodeError: a member's name marked as UTF-8 is not (zipfile cannot open
        # such an archive at all).
        return [SourceRef("zip", path, None, 0, f"not a readable zip archive: {error}",
                          follow=follow)]
    if entries > limits.max_members:
        return [SourceRef("zip", path, None, 0,
                          f"{entries} members, more than the limit of {limits.max_members}")]
    declared = sum(info.file_size for info in infos)
    if declared > limits.max_uncompressed_bytes:
        return [SourceRef("zip", path, None, 0,
                          f"expands to {declared} bytes, over the limit of "
                          f"{limits.max_uncompressed_bytes}")]
    refs = []
    for info in infos:
        problem = _unsafe_member(info.filename)
        if problem is None and not _is_history(info.filename):
            # READMEs and the like travel in archives: listed as skipped, never read, so
            # an archive of other files says why nothing loaded.
            refs.append(SourceRef("zip", path, info.filename, info.file_size,
                                  skipped=_NOT_A_HISTORY_MEMBER, follow=follow))
            continue
        if problem is None and stat.S_ISLNK(info.external_attr >> 16):
            refs.append(SourceRef("zip", path, info.filename, info.file_size,
                                  skipped=_LINK_IN_ARCHIVE, follow=follow))
            continue
        if problem is None and info.file_size > max(limits.ratio_floor,
                                                    limits.max_ratio * info.compress_size):
            problem = (f"compressed {info.compress_size} bytes expand to {info.file_size} "
                       f"(more than {limits.max_ratio:g} times): refused as a zip bomb")
        refs.append(SourceRef("zip", path, info.filename, info.file_size, problem,
                              follow=follow))
    return refs


_LINK_IN_FOLDER: Final = ("a symbolic link inside a folder: not followed (only a link given "
                          "itself is read)")
_LINK_TO_FOLDER: Final = "a symbolic link to a folder inside a folder: not followed"
_LINK_IN_ARCHIVE: Final = "a symbolic link inside an archive: not followed"
_NOT_A_HISTORY_MEMBER: Final = (
    f"not read: of an archive, handlab reads the histories ({', '.join(HISTORY_SUFFIXES)} "
    "members); give a Big Two score sheet by itself")


def _one_path(path: Path, limits: Limits, explicit: bool) -> list[SourceRef]:
    text = os.fspath(path)
    # A path given itself may be a link, and is followed; one found in a folder is not.
    info = path.stat() if explicit else path.lstat()
    if stat.S_ISDIR(info.st_mode):
        return _folder(text, limits)
    if not stat.S_ISREG(info.st_mode):
        # Never opened: a named pipe blocks the reader until someone writes to it.
        what = _not_regular(info.st_mode)
        if explicit:
            return [SourceRef("file", text, problem=f"{what}: refused (handlab reads files "
                              "and folders)")]
        return [SourceRef("file", text, skipped=f"{what} inside a folder: not read",
                          follow=False)]
    lower = text.lower()
    if lower.endswith(".zip"):
        return _zip_members(text, limits, follow=explicit)
    if lower.endswith(".gz"):
        return [SourceRef("gzip", text, None, info.st_size, follow=explicit)]
    if not explicit and not _is_history(lower):
        return []
    problem = None
    if info.st_size > limits.max_file_bytes:
        problem = f"{info.st_size} bytes, over the limit of {limits.max_file_bytes}"
    return [SourceRef("file", text, None, info.st_size, problem, follow=explicit)]


def _folder(text: str, limits: Limits) -> list[SourceRef]:
    """The sources of a folder, recursively, in a reproducible (sorted) order.

    A symbolic link inside it, to a file or a folder, is not followed: it is named as
    skipped.  A folder of links would otherwise read (and, as rejects, store) whatever
    they point to, ``/etc/passwd`` say; and links to folders can loop.  So is a named pipe,
    a socket or a device (never opened).  A sub-folder that cannot be listed, or an entry
    gone or unreadable, is an error of its own: the rest of the folder is still read.
    """
    refs: list[SourceRef] = []

    def unlisted(error: OSError) -> None:
        where = error.filename if isinstance(error.filename, str) else text
        refs.append(SourceRef("file", where, problem=f"cannot be listed: "
                              f"{error.strerror or error}"))

    for root, dirs, files in os.walk(text, followlinks=False, onerror=unlisted):
        dirs.sort()
        for name in dirs:
            if os.path.islink(os.path.join(root, name)):
                refs.append(SourceRef("file", os.path.join(root, name), skipped=_LINK_TO_FOLDER,
                                      follow=False))
        for name in sorted(files):
            lower = name.lower()
            if _is_history(lower) or lower.endswith((".zip", ".gz")):
                refs.extend(_folder_entry(os.path.join(root, name), limits))
    return refs


def _folder_entry(full: str, limits: Limits) -> list[SourceRef]:
    """The sources of a file found in a folder (a link: skipped, never followed); one that
    vanished or cannot be looked at since the folder was listed is an error of its own."""
    if os.path.islink(full):
        return [SourceRef("file", full, skipped=_LINK_IN_FOLDER, follow=False)]
    try:
        return _one_path(Path(full), limits, explicit=False)
    except OSError as error:
        return [SourceRef("file", full, problem=f"cannot be read: {error.strerror or error}")]


def _url_sources(url: str, limits: Limits) -> list[SourceRef]:
    """The sources an fsspec URL names: a file, or a folder's history files, ``.zip`` and
    ``.gz`` (recursively, sorted), each by its URL; raise SourceError when there is none."""
    fs, path = url_filesystem(url)
    try:
        info = fs.info(path)
    except FileNotFoundError:
        raise SourceError(f"{url}: no such file or folder") from None
    except OSError as error:
        raise SourceError(f"{url}: {error}") from error
    if info.get("type") != "directory":
        return _url_file(url, int(info.get("size") or 0), limits, explicit=True)
    refs: list[SourceRef] = []
    for found, entry in sorted(fs.find(path, detail=True).items()):
        lower = str(found).lower()
        if _is_history(lower) or lower.endswith((".zip", ".gz")):
            refs.extend(_url_file(str(fs.unstrip_protocol(found)), int(entry.get("size") or 0),
                                  limits, explicit=False))
    return refs


def _url_file(url: str, size: int, limits: Limits, explicit: bool) -> list[SourceRef]:
    """One file named by URL, as :func:`_one_path` takes a local file."""
    lower = url.lower()
    if lower.endswith(".zip"):
        return _zip_members(url, limits)
    if lower.endswith(".gz"):
        return [SourceRef("gzip", url, None, size)]
    if not explicit and not _is_history(lower):
        return []
    problem = None
    if size > limits.max_file_bytes:
        problem = f"{size} bytes, over the limit of {limits.max_file_bytes}"
    return [SourceRef("file", url, None, size, problem)]


def expand(paths: Sequence[Path | str], limits: Limits | None = None) -> list[SourceRef]:
    """The history files named by ``paths``, in order; raise SourceError for a missing path.

    Folders are searched recursively for ``.phh``, ``.phhs``, ``.zip`` and ``.gz``;
    a file named explicitly is read whatever its suffix.  A symbolic link given in
    ``paths`` is followed; one inside a folder or an archive is not: its record says why
    (``skipped``), as does a named pipe, a socket or a device inside a folder (one given in
    ``paths`` is refused: its record's ``problem``).  A path may be an fsspec URL (a
    ``file://`` URL is a local path).
    """
    limits = limits or Limits()
    refs: list[SourceRef] = []
    for item in paths:
        text = os.fspath(item)
        if is_url(text):
            refs.extend(_url_sources(text, limits))
            continue
        local = text.removeprefix("file://") if text.startswith("file://") else text
        if not local.strip():  # Path("") is the working folder: ``ingest "$UNSET"`` loaded it
            raise SourceError(f"{text!r} names no file or folder (an empty path)")
        path = Path(local)
        try:
            refs.extend(_one_path(path, limits, explicit=True))
        except FileNotFoundError:
            raise SourceError(f"{shown_path(str(path))}: no such file or folder") from None
        except OSError as error:
            raise SourceError(f"{shown_path(str(path))}: {error.strerror or error}") from error
    return refs


# What a container raises when its bytes are bad: a corrupt gzip stream, a bad zip CRC, a
# truncated file, a file that vanished.
_READ_ERRORS: Final = (OSError, EOFError, zlib.error, zipfile.BadZipFile)


class BoundedReader:
    """A read-only binary stream that stops past ``limit`` bytes; ``count`` is bytes read so far.

    Read errors of the container become :class:`SourceError` here, at the read,
    so that an error raised by the code consuming the stream is never mistaken
    for a problem of the input.
    """

    def __init__(self, inner: IO[bytes], limit: int, what: str) -> None:
        self._inner = inner
        self._limit = limit
        self._what = what
        self.count = 0

    def _account(self, data: bytes) -> bytes:
        self.count += len(data)
        if self.count > self._limit:
            raise SourceLimitError(f"{self._what}: more than {self._limit} bytes "
                                   "(decompressed): refused")
        return data

    def read(self, size: int = -1) -> bytes:
        try:
            data = self._inner.read(size)
        except _READ_ERRORS as error:
            raise SourceError(f"{self._what}: cannot be read: {error}") from error
        return self._account(data)

    def readline(self, size: int = -1) -> bytes:
        try:
            data = self._inner.readline(size)
        except _READ_ERRORS as error:
            raise SourceError(f"{self._what}: cannot be read: {error}") from error
        return self._account(data)

    def as_io(self) -> IO[bytes]:
        """This reader typed as the binary stream the parsers accept (they only call readline)."""
        return cast(IO[bytes], self)


@contextmanager
def open_source(ref: SourceRef, limits: Limits | None = None, offset: int = 0
                ) -> Iterator[BoundedReader]:
    """Open ``ref`` for reading as bytes, within the limits (a plain file from ``offset`` on).

    Problems of the input (a corrupt gzip stream, a bad zip CRC, a vanished file,
    a limit exceeded) raise :class:`SourceError` when they happen, possibly mid-read.
    """
    limits = limits or Limits()
    if ref.problem is not None:
        raise SourceLimitError(f"{ref.name}: {ref.problem}")
    if offset and ref.kind != "file":
        raise ValueError(f"{ref.name}: only plain files are read from an offset")
    with ExitStack() as stack:
        try:
            outer = stack.enter_context(_open_binary(ref.path, ref.follow))
            if ref.kind == "file":
                raw: IO[bytes] = outer
                raw.seek(offset)
                limit = limits.max_file_bytes
            elif ref.kind == "gzip":
                raw = cast(IO[bytes], stack.enter_context(gzip.GzipFile(fileobj=outer,
                                                                        mode="rb")))
                compressed = ref.size if is_url(ref.path) else os.fstat(outer.fileno()).st_size
                limit = min(limits.max_uncompressed_bytes,
                            max(limits.ratio_floor, int(limits.max_ratio * compressed)))
            else:
                raw = _member(ref, outer, stack)
                limit = limits.max_uncompressed_bytes
        except (*_READ_ERRORS, KeyError, UnicodeDecodeError) as error:
            raise SourceError(f"{ref.name}: cannot be read: {error}") from error
        yield BoundedReader(raw, limit, ref.name)


_ARCHIVES_KEPT: Final = 4
"""Archives one process keeps open with their index of members (the latest used)."""
_ARCHIVES: OrderedDict[tuple[int, ...], zipfile.ZipFile] = OrderedDict()
_ARCHIVES_LOCK = threading.Lock()


def _forget_archives() -> None:
    """In a forked child: none of the parent's archives, and a lock no thread holds."""
    global _ARCHIVES_LOCK  # replaced, not shared, after a fork
    _ARCHIVES_LOCK = threading.Lock()
    _ARCHIVES.clear()


os.register_at_fork(after_in_child=_forget_archives)


def release_archives() -> None:
    """Close the archives kept open (:func:`open_source`): at the end of an ingest, so a
    process that lives on (the dashboard's server) holds no upload's file once its
    temporary folder is gone.  A member being read goes on: zipfile closes the file when
    its last reader is done."""
    with _ARCHIVES_LOCK:
        kept = list(_ARCHIVES.values())
        _ARCHIVES.clear()
        for archive in kept:
            archive.close()


def _file_key(info: os.stat_result) -> tuple[int, ...]:
    """A file as the same one, unchanged: device, inode, size, modification and change
    times (the change time, which no one can set back, sees a rewrite in place that put the
    old size and modification time back)."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _opened_member(outer: IO[bytes], member: str, stack: ExitStack) -> IO[bytes]:
    """``member`` of the archive ``outer``, its index read for this read alone."""
    return stack.enter_context(stack.enter_context(zipfile.ZipFile(outer)).open(member))


def _member(ref: SourceRef, outer: IO[bytes], stack: ExitStack) -> IO[bytes]:
    """Member ``ref.member`` of the zip archive ``ref`` names, opened (``outer``: the
    archive, opened and checked).

    Reading an archive's index of members costs time in its number of members, and every
    member is opened two or three times (its head, its digest, its hands): opened anew each
    time, an archive of 10,000 tiny members took quadratic time (a denial of service an
    upload could cause).  So a local archive is kept open with its index while it is the
    same file, unchanged (:func:`_file_key`; the file zipfile opens must be ``outer``'s, or
    it is not kept).  A member is opened while the lock is held, so no other thread closes
    its archive in between; zipfile reads members from several threads at once."""
    assert ref.member is not None
    if is_url(ref.path):
        return _opened_member(outer, ref.member, stack)
    key = _file_key(os.fstat(outer.fileno()))
    with _ARCHIVES_LOCK:
        kept = _ARCHIVES.get(key)
        if kept is not None:
            _ARCHIVES.move_to_end(key)
            return stack.enter_context(kept.open(ref.member))
    opened = zipfile.ZipFile(ref.path)
    assert opened.fp is not None
    if _file_key(os.fstat(opened.fp.fileno())) != key:  # replaced since ``outer`` opened it
        opened.close()
        return _opened_member(outer, ref.member, stack)
    with _ARCHIVES_LOCK:
        _ARCHIVES[key] = opened
        while len(_ARCHIVES) > _ARCHIVES_KEPT:
            _ARCHIVES.popitem(last=False)[1].close()
        return stack.enter_context(opened.open(ref.member))


def content_digest(ref: SourceRef, limits: Limits | None = None) -> tuple[str, int]:
    """The sha256 (hex) and byte count of the source's content (decompressed)."""
    digest = hashlib.sha256()
    size = 0
    with open_source(ref, limits) as stream:
        while block := stream.read(_MIB):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def read_head(ref: SourceRef, limits: Limits | None = None, size: int = HEAD_BYTES) -> bytes:
    """The first ``size`` bytes of the source's content (decompressed): enough to tell its
    format (:func:`parsers.foreign.foreign_format`).  Raises :class:`SourceError` as
    :func:`open_source` does."""
    with open_source(ref, limits) as stream:
        return stream.read(size)


def read_range(ref: SourceRef, start: int, end: int) -> bytes:
    """Bytes ``start`` to ``end`` of a plain file (a part a worker loads on its own).

    A file that is shorter than that now, or unreadable, raises :class:`SourceError`:
    it changed since it was hashed, and its parts no longer fit together.
    """
    if ref.kind != "file":
        raise ValueError(f"{ref.name}: only plain files are read in ranges")
    try:
        with _open_binary(ref.path, ref.follow) as stream:
            stream.seek(start)
            data = stream.read(end - start)
    except OSError as error:
        raise SourceError(f"{ref.name}: cannot be read: {error}") from error
    if len(data) != end - start:
        raise SourceError(f"{ref.name}: cannot be read: the file changed while it was loaded")
    return data
