"""The standard-library build backend (python/build_backend): the wheel pip installs."""
from __future__ import annotations

import base64
import hashlib
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "build_backend"))
import vidgen_build  # noqa: E402

import vidgen  # noqa: E402


class BuildBackendTest(unittest.TestCase):
    def test_the_wheel_holds_the_package_its_metadata_and_a_true_record(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            name = vidgen_build.build_wheel(folder)
            self.assertEqual(name, f"vidgen-{vidgen.__version__}-py3-none-any.whl")
            with zipfile.ZipFile(Path(folder) / name) as wheel:
                names = set(wheel.namelist())
                for needed in ("vidgen/__init__.py", "vidgen/client.py", "vidgen/py.typed"):
                    self.assertIn(needed, names)
                self.assertFalse([n for n in names if "__pycache__" in n or n.startswith("tests/")])
                dist_info = f"vidgen-{vidgen.__version__}.dist-info"
                metadata = wheel.read(f"{dist_info}/METADATA").decode()
                self.assertIn("Name: vidgen\n", metadata)
                self.assertIn("Requires-Python: >=3.9\n", metadata)
                for line in wheel.read(f"{dist_info}/RECORD").decode().splitlines():
                    path, digest, size = line.split(",")
                    if path.endswith("RECORD"):
                        continue
                    data = wheel.read(path)
                    expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                    self.assertEqual((digest, int(size)), (f"sha256={expected}", len(data)), path)

    def test_nothing_to_download_before_building(self) -> None:
        self.assertEqual(vidgen_build.get_requires_for_build_wheel(), [])
        self.assertEqual(vidgen_build.get_requires_for_build_editable(), [])


if __name__ == "__main__":
    unittest.main()
