"""Template documents of a tree's last render, reused by the next render of that tree.

Parsing template output and emitting each object is most of a render's time, and a change to
one team changes a handful of documents among thousands. So a render splits each template's
output into its documents and keeps, by the digest of a document's text, the object it parsed
to and the file bytes it was written as. The next render of the same tree (the memo is named
by the digest of the lock it wrote, kept in the render cache of output/rendered.py) parses and
emits only documents whose text is new; the rest are the very objects and bytes a cold render
would make, since both are functions of the text alone. A memo that is missing, unreadable or
made by other code (strata's files, Python, PyYAML) is simply not used."""

from __future__ import annotations

import hashlib
import itertools
import marshal
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

import strata

# A document starts at '---' in the first column (libyaml's rule, in block scalars too); '...'
# document ends and '%' directives in the first column send the whole stream to the parser.
_DOCUMENT_START = re.compile(r"^---(?=[ \t\r\n]|\Z)", re.MULTILINE)
_STREAM_ONLY = re.compile(r"^(?:\.\.\.|%)", re.MULTILINE)
_FORMAT = 1


def documents(text: str) -> list[str] | None:
    """The documents of a YAML stream as text, each parseable alone with the same result as
    in the stream; None when the stream has markers that tie documents together."""
    if _STREAM_ONLY.search(text) or "\r" in text:
        return None
    starts = [m.start() for m in _DOCUMENT_START.finditer(text)]
    bounds = [0, *(s for s in starts if s > 0), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def key(document: str) -> bytes:
    return hashlib.blake2b(document.encode(), digest_size=16).digest()


class Memo:
    """The documents of the previous render (``previous``) and of this one (``current``):
    digest of the text -> (object, file bytes or None until the tree is built)."""

    def __init__(self, previous: dict[bytes, tuple[Any, bytes | None]] | None = None) -> None:
        self.previous = previous or {}
        self.current: dict[bytes, list[Any]] = {}

    def object(self, document_key: bytes) -> Any | None:
        """The object a document parsed to last time (a fresh copy: marshal made it)."""
        hit = self.previous.get(document_key)
        return None if hit is None else hit[0]

    def content(self, document_key: bytes) -> bytes | None:
        hit = self.previous.get(document_key)
        return None if hit is None else hit[1]

    def keep(self, document_key: bytes, body: Any, content: bytes) -> None:
        self.current[document_key] = [body, content]


def _code_key() -> str:
    """What parsing and emitting depend on besides the text: strata's own files, Python, PyYAML."""
    h = hashlib.sha256(f"memo {_FORMAT} {strata.__version__} {sys.version} {yaml.__version__}".encode())
    root = Path(strata.__file__).resolve().parent
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            stat = os.stat(os.path.join(top, name))
            h.update(f"\0{os.path.relpath(top, root)}/{name}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return h.hexdigest()


def _path(cache: Path, lock_digest: str) -> Path:
    return cache / f"documents-{lock_digest.removeprefix('sha256:')}.marshal"


def load(cache: Path, lock_digest: str) -> Memo:
    """The memo of the tree whose lock has ``lock_digest``; an empty one when there is none."""
    try:
        data = marshal.loads(_path(cache, lock_digest).read_bytes())
        if not isinstance(data, dict) or data.get("code") != _code_key():
            return Memo()
        return Memo(data["documents"])
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        return Memo()


def save(cache: Path, memo: Memo, lock_digest: str, replaces: str | None) -> None:
    """Keep ``memo`` for the tree whose lock has ``lock_digest``; drop the memo of the tree it
    replaced. Best effort, like the render records beside it."""
    documents = {k: (v[0], v[1]) for k, v in memo.current.items() if v[1] is not None}
    try:
        blob = marshal.dumps({"code": _code_key(), "documents": documents})
    except ValueError:  # an object marshal cannot write (a timestamp): no memo this time
        return
    try:
        cache.mkdir(parents=True, exist_ok=True)
        target = _path(cache, lock_digest)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_bytes(blob)
        os.replace(tmp, target)
        if replaces and replaces != lock_digest:
            _path(cache, replaces).unlink(missing_ok=True)
    except OSError:
        pass


def parse(text: str, memo: Memo | None, parse_stream: Any) -> Iterator[tuple[Any, bytes | None]]:
    """(object, document key) for each non-empty document of ``text``: from the memo when the
    document's text was seen, else parsed by ``parse_stream`` (yamlio.load_all). Any problem
    in a document parses the whole stream, so errors read exactly as without a memo."""
    parts = documents(text) if memo is not None else None
    if memo is None or parts is None:
        for doc in parse_stream(text):
            yield doc, None
        return
    out: list[tuple[Any, bytes | None]] = []
    try:
        for part in parts:
            document_key = key(part)
            body = memo.object(document_key)
            if body is None:
                docs = parse_stream(part)
                if len(docs) > 1:
                    raise ValueError("the split missed a document start")
                body = docs[0] if docs else None
            if body is not None:
                out.append((body, document_key))
    except (yaml.YAMLError, ValueError):
        out = [(doc, None) for doc in parse_stream(text)]  # raises the stream's own error
    yield from out
