"""The vendored front-end files are the exact, pinned versions (htmx 4 would break every page)."""

import hashlib
import re
from pathlib import Path

VENDOR = Path(__file__).resolve().parents[1] / "static" / "vendor"


def _sums() -> dict[str, str]:
    sums = {}
    for line in (VENDOR / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split(maxsplit=1)
        sums[name.lstrip("*")] = digest
    return sums


def test_vendored_files_match_their_checksums() -> None:
    sums = _sums()
    assert set(sums) == {"htmx.min.js", "ws.min.js"}
    for name, digest in sums.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name


def test_htmx_is_version_2_0_11() -> None:
    source = (VENDOR / "htmx.min.js").read_text()
    assert re.findall(r'version:"([^"]+)"', source) == ["2.0.11"]


def test_ws_extension_registers_itself_as_ws() -> None:
    assert 'htmx.defineExtension("ws"' in (VENDOR / "ws.min.js").read_text()
