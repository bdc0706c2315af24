"""axe-core, vendored for the browser tests only (tests/browser/vendor): the exact, pinned file."""

import hashlib
from pathlib import Path

VENDOR = Path(__file__).resolve().parent / "browser" / "vendor"
STATIC = Path(__file__).resolve().parents[1] / "static"


def test_axe_matches_its_checksum_and_version() -> None:
    digest, name = (VENDOR / "SHA256SUMS").read_text().split()
    source = (VENDOR / name).read_bytes()
    assert name == "axe.min.js"
    assert hashlib.sha256(source).hexdigest() == digest
    assert source.startswith(b"/*! axe v4.14.1\n")
    assert (VENDOR / "axe-core.LICENSE").read_text().startswith("Mozilla Public License")


def test_axe_is_never_served() -> None:
    assert not list(STATIC.rglob("axe*"))
