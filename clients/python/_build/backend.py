"""The safegp client's build backend: PEP 517 (and PEP 660 for editable
installs), written with the Python standard library alone.

``pip install ./clients/python`` builds the package in an isolated
environment into which it first installs the backend's requirements. With
setuptools as the backend that meant a download, so the install failed on
a machine without network. This backend has no requirements
(``requires = []`` in pyproject.toml, found through ``backend-path``), so
the install needs nothing but the interpreter and the pip a venv brings.

The package is pure Python: the wheel holds ``src/safegp`` as it is,
the metadata (``METADATA``, ``WHEEL``, ``RECORD``) written from
pyproject.toml's ``[project]`` table, which the backend reads with
``tomllib`` where Python has it (3.11+) and with a reader of the table's
plain ``key = "string"`` and ``key = [strings]`` lines otherwise.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PACKAGE = "safegp"

# Fixed timestamps: the same sources give the same archive, byte for byte.
_EPOCH = (2020, 1, 1, 0, 0, 0)


def _project() -> Dict[str, object]:
    """pyproject.toml's [project] table."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib  # Python 3.11+
    except ImportError:  # pragma: no cover - exercised on Python < 3.11
        return _read_project(text)
    return dict(tomllib.loads(text)["project"])


def _read_project(text: str) -> Dict[str, object]:
    """The [project] table's string and list-of-string keys, for Pythons
    without tomllib (the table uses no other syntax for what is read)."""
    table: Dict[str, object] = {}
    inside = False
    lines = iter(text.splitlines())
    for line in lines:
        s = line.strip()
        if s.startswith("["):
            inside = s == "[project]"
            continue
        if not inside or not s or s.startswith("#"):
            continue
        m = re.match(r'([A-Za-z0-9_-]+)\s*=\s*(.*)$', s)
        if not m:
            continue
        key, value = m.group(1), m.group(2)
        if value.startswith('"'):
            table[key] = _string(value)
        elif value.startswith("["):
            while value.count("[") > value.count("]"):
                value += next(lines).strip()
            table[key] = re.findall(r'"((?:[^"\\]|\\.)*)"', value)
    return table


def _string(value: str) -> str:
    m = re.match(r'"((?:[^"\\]|\\.)*)"', value)
    if not m:
        raise ValueError(f"pyproject.toml: cannot read {value!r}")
    return m.group(1).encode().decode("unicode_escape")


def _names() -> Tuple[str, str, str]:
    p = _project()
    name, version = str(p["name"]), str(p["version"])
    dist = re.sub(r"[-_.]+", "_", name).lower()
    return name, version, f"{dist}-{version}"


def _metadata() -> str:
    p = _project()
    name, version, _ = _names()
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if "description" in p:
        lines.append(f"Summary: {p['description']}")
    if "requires-python" in p:
        lines.append(f"Requires-Python: {p['requires-python']}")
    for c in p.get("classifiers", []) or []:  # type: ignore[union-attr]
        lines.append(f"Classifier: {c}")
    for d in p.get("dependencies", []) or []:  # type: ignore[union-attr]
        lines.append(f"Requires-Dist: {d}")
    body = ""
    readme = p.get("readme")
    if isinstance(readme, str) and (ROOT / readme).is_file():
        lines.append("Description-Content-Type: text/markdown")
        body = (ROOT / readme).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + body


def _wheel_text() -> str:
    return "Wheel-Version: 1.0\nGenerator: safegp _build/backend.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _package_files() -> List[Path]:
    """The package's files, sorted: sources and py.typed, no caches."""
    out = []
    for path in sorted((SRC / PACKAGE).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo"):
            out.append(path)
    return out


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _write_wheel(directory: str, files: List[Tuple[str, bytes]]) -> str:
    """A wheel of files (archive name, contents) plus the dist-info."""
    _, _, stem = _names()
    info = f"{stem}.dist-info"
    files = files + [(f"{info}/METADATA", _metadata().encode("utf-8")), (f"{info}/WHEEL", _wheel_text().encode())]
    record = "\n".join(_record_line(n, d) for n, d in files) + f"\n{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    name = f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data in files:
            zi = zipfile.ZipInfo(arcname, _EPOCH)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return name


# PEP 517 hooks.


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[dict] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[dict] = None) -> str:
    _, _, stem = _names()
    info = Path(metadata_directory) / f"{stem}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(_metadata(), encoding="utf-8")
    (info / "WHEEL").write_text(_wheel_text(), encoding="utf-8")
    return info.name


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None) -> str:
    files = [(p.relative_to(SRC).as_posix(), p.read_bytes()) for p in _package_files()]
    return _write_wheel(wheel_directory, files)


def build_editable(wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None) -> str:
    """PEP 660: a wheel whose .pth file puts src/ on the path, so that
    ``pip install -e`` serves the sources as they are edited."""
    return _write_wheel(wheel_directory, [(f"__editable__.{PACKAGE}.pth", (str(SRC) + "\n").encode())])


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    """The sources with pyproject.toml, the README and this backend."""
    _, _, stem = _names()
    name = f"{stem}.tar.gz"
    paths = [ROOT / "pyproject.toml", ROOT / "README.md", Path(__file__).resolve()] + _package_files()
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        pkg_info = _metadata().encode("utf-8")
        for arcname, data in [("PKG-INFO", pkg_info)] + [(p.relative_to(ROOT).as_posix(), p.read_bytes()) for p in paths if p.is_file()]:
            ti = tarfile.TarInfo(f"{stem}/{arcname}")
            ti.size, ti.mode, ti.mtime = len(data), 0o644, time.mktime(_EPOCH + (0, 0, -1))
            tar.addfile(ti, io.BytesIO(data))
    return name
