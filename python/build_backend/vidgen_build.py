"""A PEP 517 build backend in the standard library, for the one pure-Python package here: it
builds a py3-none-any wheel of vidgen/ (and an editable one), so pip installs it offline without
setuptools or wheel. The version comes from vidgen/_version.py, the rest from pyproject.toml."""
from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from typing import Any, Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "vidgen"


def _project() -> Dict[str, str]:
    """name, version, description and requires-python (a full TOML parser is 3.11+ only)."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as file:
        text = file.read()
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    fields = dict(re.findall(r'^([a-z-]+) = "([^"]*)"$', project, re.M))
    with open(os.path.join(ROOT, PACKAGE, "_version.py"), encoding="utf-8") as file:
        version = re.search(r'__version__ = "([^"]+)"', file.read())
    if version is None or version.group(1) != fields["version"]:
        raise RuntimeError("pyproject.toml's version and vidgen/_version.py's differ.")
    return fields


def _metadata() -> bytes:
    project = _project()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as file:
        readme = file.read()
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {project['name']}\nVersion: {project['version']}\nSummary: {project['description']}\n"
        f"Requires-Python: {project['requires-python']}\n"
        "Classifier: Programming Language :: Python :: 3\nClassifier: Typing :: Typed\n"
        f"Description-Content-Type: text/markdown\n\n{readme}"
    ).encode("utf-8")


def _sources() -> List[Tuple[str, str]]:
    """(path in the archive, path on disk) of the package's files: .py and py.typed."""
    found: List[Tuple[str, str]] = []
    for folder, dirs, files in os.walk(os.path.join(ROOT, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py") or name == "py.typed":
                disk = os.path.join(folder, name)
                found.append((os.path.relpath(disk, ROOT).replace(os.sep, "/"), disk))
    return found


def _write_wheel(directory: str, files: List[Tuple[str, bytes]]) -> str:
    project = _project()
    dist_info = f"{project['name']}-{project['version']}.dist-info"
    files = files + [
        (f"{dist_info}/METADATA", _metadata()),
        (f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: vidgen_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = io.StringIO()
    for path, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
        record.write(f"{path},sha256={digest},{len(data)}\n")
    record.write(f"{dist_info}/RECORD,,\n")
    name = f"{project['name']}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files + [(f"{dist_info}/RECORD", record.getvalue().encode("utf-8"))]:
            wheel.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return name


def _read(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def build_wheel(
    wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None
) -> str:
    return _write_wheel(wheel_directory, [(path, _read(disk)) for path, disk in _sources()])


def build_editable(
    wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None
) -> str:
    """``pip install -e``: a .pth file that puts this folder on sys.path."""
    return _write_wheel(wheel_directory, [(f"_{PACKAGE}_editable.pth", (ROOT + "\n").encode("utf-8"))])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    project = _project()
    base = f"{project['name']}-{project['version']}"
    extra = ["pyproject.toml", "README.md", "build_backend/vidgen_build.py"]
    with tarfile.open(os.path.join(sdist_directory, f"{base}.tar.gz"), "w:gz") as sdist:
        for path, disk in _sources() + [(p, os.path.join(ROOT, p)) for p in extra]:
            sdist.add(disk, arcname=f"{base}/{path}")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        metadata = _metadata()
        info.size = len(metadata)
        sdist.addfile(info, io.BytesIO(metadata))
    return f"{base}.tar.gz"
