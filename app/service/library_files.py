"""The content library's TOML files, in and out, in the format and folders of `scenarios/`: an
item exports as one file, a scenario as a zip of the folder with the library's items it uses (the
built-ins are on every server already); a file, several, or a zip of a folder import at once,
every error naming the file and the field.
"""

from __future__ import annotations

import io
import tomllib
import zipfile
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

import tomli_w

from app.content import FOLDERS, unreadable
from app.nesting import TooDeep, loads_toml
from app.rules.content import ContentError
from app.rules.core.messages import message

from .errors import ServiceError
from .library import ITEM_BYTES_MAX, ITEMS_MAX, Change, ContentProblems, Data

FILES_MAX = 4 * ITEMS_MAX  # in one import
UNPACKED_MAX = 2 * 1024 * 1024  # bytes a zip may unpack to, all files together
# What a file holds, by the table only its kind has, for a file outside the kinds' folders.
_MARKS = (
    ("stations", "ship"),
    ("skill_cards", "character"),
    ("cards", "deck"),
    ("ships", "scenario"),
)


def to_toml(data: Mapping[str, Any]) -> str:
    return tomli_w.dumps(data)


def file_name(kind: str, item_id: str) -> str:
    """Where the item's file sits in a scenario folder, as in `scenarios/`."""
    folder = FOLDERS[kind][0]
    return f"{folder}/{item_id}.toml" if folder else f"{item_id}.toml"


def scenario_files(
    scenario_id: str, scenario: Data, library: Mapping[str, Mapping[str, Data]]
) -> dict[str, str]:
    """{file name: TOML} of a scenario and every library item it uses: the ship classes it
    places, and the decks of their stations."""
    files = {file_name("scenario", scenario_id): to_toml(scenario)}
    ships = library.get("ship", {})
    decks = library.get("deck", {})
    for placement in scenario.get("ships", []):
        ship_id = str(placement.get("ship_class", ""))
        if ship_id in ships:
            files[file_name("ship", ship_id)] = to_toml(ships[ship_id])
            for station in ships[ship_id].get("stations", []):
                deck_id = str(station.get("deck", ""))
                if deck_id in decks:
                    files[file_name("deck", deck_id)] = to_toml(decks[deck_id])
    return files


def zipped(files: Mapping[str, str], folder: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in sorted(files.items()):
            archive.writestr(f"{folder}/{name}", body)
    return buffer.getvalue()


def unpacked(uploads: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """The TOML files of an upload: files as they are, zips opened (within the caps)."""
    found: list[tuple[str, bytes]] = []
    for name, body in uploads:
        if not name.lower().endswith(".zip"):
            found.append((name, body))
            continue
        try:
            with zipfile.ZipFile(io.BytesIO(body)) as archive:
                entries = [i for i in archive.infolist() if i.filename.endswith(".toml")]
                if sum(i.file_size for i in entries) > UNPACKED_MAX or len(entries) > FILES_MAX:
                    too_big = message(
                        "content_zip_too_big", files=FILES_MAX, size=UNPACKED_MAX // 1024
                    )
                    raise ContentProblems([ContentError(name, "(zip)", too_big)])
                found += [(f"{name}/{i.filename}", archive.read(i)) for i in entries]
        except zipfile.BadZipFile:
            not_zip = message("content_not_a_zip")
            raise ContentProblems([ContentError(name, "(zip)", not_zip)]) from None
    if len(found) > FILES_MAX:
        too_many = message("content_too_many_files", count=len(found), most=FILES_MAX)
        raise ContentProblems([ContentError("(import)", "(files)", too_many)])
    return found


def read_files(uploads: list[tuple[str, bytes]]) -> list[Change]:
    """Every uploaded item as a change to save, or ContentProblems naming each file that cannot
    be read (its syntax, its size, its kind, an id two files give)."""
    problems: list[ContentError] = []
    changes: list[Change] = []
    seen: dict[tuple[str, str], str] = {}
    for name, body in unpacked(uploads):
        try:
            kind, data = _read(name, body)
        except ContentError as error:
            problems.append(error)
            continue
        change = Change(kind, data, None, name)
        if (kind, change.id) in seen:
            twice = message("content_also_in_file", id=change.id, file=seen[kind, change.id])
            problems.append(ContentError(name, "id", twice))
        seen[kind, change.id] = name
        changes.append(change)
    if problems:
        raise ContentProblems(problems)
    if not changes:
        no_files = message("content_no_toml_files")
        raise ContentProblems([ContentError("(import)", "(files)", no_files)])
    return changes


def _read(name: str, body: bytes) -> tuple[str, Data]:
    """The file's kind and data. A file nested deeper than any item refuses the whole import
    (TOO_DEEP): nothing can be said about its fields."""
    if len(body) > ITEM_BYTES_MAX:
        too_big = message("content_file_too_big", most=ITEM_BYTES_MAX // 1024)
        raise ContentError(name, "(whole)", too_big)
    try:
        data = loads_toml(body.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise unreadable(name, error) from error
    except TooDeep as error:
        deep = message("file_too_deep", file=name[:120], most=error.most)
        raise ServiceError("TOO_DEEP", deep) from None
    return _kind_of(name, data), data


def _kind_of(name: str, data: Data) -> str:
    folders = {folder: kind for kind, (folder, _) in FOLDERS.items() if folder}
    parent = PurePosixPath(name).parent.name
    if parent in folders:
        return folders[parent]
    for mark, kind in _MARKS:
        if mark in data:
            return kind
    raise ContentError(name, "(kind)", message("content_kind_of_file_unknown"))
