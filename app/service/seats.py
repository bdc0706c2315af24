"""Seats: a phone's claim on one station. The seat row and the engine's SeatCrew / UnseatCrew
always change in the same transaction, so the table and the game never disagree for long.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import secrets
import uuid
from collections.abc import Collection, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Literal

from sqlalchemy import func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Game, Seat
from app.db.session import autocommit
from app.rules import Actor
from app.rules.core.messages import message

from .campaigns import check_claim
from .commands import (
    CommandResult,
    LockedGame,
    SessionFactory,
    game_key,
    locked,
    realign,
    tell_seats_ended,
)
from .errors import ServiceError
from .games import token_hash


@dataclasses.dataclass(frozen=True)
class SeatInfo:
    id: uuid.UUID
    game_id: uuid.UUID
    ship: str
    station: str
    name: str
    character: str | None
    taken_from: str | None = None  # the client address it was taken from (None: from before)

    @property
    def viewer(self) -> tuple[str, str]:
        """How the engine's views and event_view name this seat."""
        return ("seat", str(self.id))


# --- Who a token is ---------------------------------------------------------------------------
#
# Asked once per request (the rate limit's look-up is handed to the route, app/web/screen.py),
# answered by the database each time, so a seat that ended, here or in another process, opens
# nothing from the next request on. Ending seats also sends SEATS_ENDED on the notification
# channel, so every process's SeatWatch (app/web/ws.py) closes that seat's sockets at once.

Owner = Literal["gm"] | SeatInfo


# Asked on every request that names a game, so a plain statement: no ORM objects are built.
_OWNER = text(
    "SELECT games.gm_token_hash, seats.id, seats.ship, seats.station, seats.name,"
    " seats.character, seats.taken_from FROM games LEFT JOIN seats ON seats.game_id = games.id"
    " AND seats.token_hash = :hash AND seats.revoked_at IS NULL WHERE games.id = :id"
)


async def token_owner(
    session_factory: SessionFactory, game_id: uuid.UUID | str, token: str | None
) -> Owner | None:
    """Who this token is in this game: "gm", its live seat, or None (unknown, revoked, another
    game's, or no such game)."""
    if not token:
        return None
    try:
        key = game_key(game_id)
    except ServiceError:
        return None
    hashed = token_hash(token)
    async with autocommit(session_factory) as session:
        row = (await session.execute(_OWNER, {"id": key, "hash": hashed})).first()
    if row is None:
        return None
    if hmac.compare_digest(row.gm_token_hash, hashed):
        return "gm"
    if row.id is None:
        return None
    return SeatInfo(row.id, key, row.ship, row.station, row.name, row.character, row.taken_from)


def _info(seat: Seat) -> SeatInfo:
    return SeatInfo(
        seat.id, seat.game_id, seat.ship, seat.station, seat.name, seat.character, seat.taken_from
    )


PHONE_TOKENS = 8  # seat tokens one phone's joins can map to in a game: one per seat it left


def phone_seat_tokens(secret_key: str, game_id: uuid.UUID | str, phone: str) -> list[str]:
    """The seat tokens a phone's joins to a game are given, in order. `phone` is a secret the
    phone keeps between requests (its own key, in a cookie of its own that no page shows), so a
    join whose answer never reached the phone (Wi-Fi dropped after the commit) is recognised when
    the phone asks again, and it gets that seat back instead of finding its own station taken.
    Derived with the server's key, like the demo GM token: nobody without it can work one out.
    Anyone holding `phone` holds the seat, so it must never be a value a page shows (as the CSRF
    token is). The "phone-key-seat" label keeps these apart from tokens derived from anything
    else with the same key."""
    tokens = []
    for attempt in range(PHONE_TOKENS):
        message = f"phone-key-seat:{game_key(game_id)}:{phone}:{attempt}".encode()
        digest = hmac.new(secret_key.encode(), message, hashlib.sha256).digest()
        tokens.append(base64.urlsafe_b64encode(digest).rstrip(b"=").decode())
    return tokens


async def _tokens_taken(session: AsyncSession, tokens: Sequence[str]) -> dict[str, Seat]:
    """The seats (live or ended, of any game) already given any of these tokens, by token."""
    by_hash = {token_hash(token): token for token in tokens}
    seats = await session.scalars(select(Seat).where(Seat.token_hash.in_(list(by_hash))))
    return {by_hash[seat.token_hash]: seat for seat in seats}


def _live_here(taken: dict[str, Seat], game: uuid.UUID) -> str | None:
    return next((t for t, s in taken.items() if s.game_id == game and s.revoked_at is None), None)


async def phone_seat(
    session_factory: SessionFactory, game_id: uuid.UUID | str, tokens: Sequence[str]
) -> str | None:
    """Which of a phone's tokens (`phone_seat_tokens`) opens a live seat of this game, if any."""
    if not tokens:
        return None
    key = game_key(game_id)
    async with autocommit(session_factory) as session:
        return _live_here(await _tokens_taken(session, tokens), key)


async def create_seat(
    session_factory: SessionFactory,
    game_id: uuid.UUID | str,
    ship: str,
    station: str,
    name: str,
    character: str | None = None,
    *,
    phone_tokens: Sequence[str] = (),
    taken_from: str | None = None,
    per_address: int | None = None,
    known_characters: Collection[str] = (),
) -> tuple[uuid.UUID, str]:
    """Man a station: (seat_id, seat_token). The token is shown once; we keep only its hash.

    With `phone_tokens` (`phone_seat_tokens`), the seat gets the first of them that no seat has
    had yet. A phone holds one seat per game: if one of its tokens already opens a live seat of
    this game, that seat is the answer and nothing changes (the phone asked again for a seat it
    was given, whichever station it asks for now: a lost answer's retry looks the same).

    `taken_from` is the caller's address, kept with the seat; with `per_address`, a join from an
    address that already holds that many live seats of the game is refused. Both are counted
    under the game's lock, so joins sent at once cannot all slip under the limit.

    In a campaign's evening, a character some phone plays is taken only by a phone that plays
    them (`known_characters`, app/service/campaign_phones.py) or with the GM's approval."""
    token = secrets.token_urlsafe(32)
    seat_id = uuid.uuid4()
    key = game_key(game_id)
    async with locked(session_factory, key) as game:
        session = game.session
        if phone_tokens:  # under the game's lock: two tries of one join find each other
            taken = await _tokens_taken(session, phone_tokens)
            held = _live_here(taken, key)
            if held is not None:
                return taken[held].id, held
            token = next((t for t in phone_tokens if t not in taken), token)
        if taken_from is not None and per_address is not None:
            await _check_address(session, key, taken_from, per_address)
        if character is not None:
            await check_claim(session, key, character, known_characters)
        # The engine refuses a manned station, so any seat row still claiming this one is left
        # over from a GM's UnseatCrew: end it, or the unique index would refuse the new seat.
        await game.apply(
            {
                "type": "SeatCrew",
                "ship": ship,
                "station": station,
                "seat": str(seat_id),
                "name": name,
                "character": character,
            },
            Actor.system(),
            f"seat:{seat_id}",
        )
        # Rows left behind by a move the engine made outside a seat change are put right first.
        await realign(game)
        if await _end_claims(session, key, ship, station):
            await tell_seats_ended(session, key)
        session.add(
            Seat(
                id=seat_id,
                game_id=key,
                token_hash=token_hash(token),
                ship=ship,
                station=station,
                name=name.strip(),
                character=character,
                taken_from=taken_from,
            )
        )
    return seat_id, token


async def _check_address(
    session: AsyncSession, game_id: uuid.UUID, taken_from: str, per_address: int
) -> None:
    held = await session.scalar(
        select(func.count())
        .select_from(Seat)
        .where(Seat.game_id == game_id, Seat.taken_from == taken_from, Seat.revoked_at.is_(None))
    )
    if (held or 0) >= per_address:
        # A message, as the engine's refusals are, so the phone says it in its own language.
        raise ServiceError("SEATS_PER_ADDRESS", message("seats_per_address", held=held), 409)


async def revoke_seat(
    session_factory: SessionFactory, game_id: uuid.UUID | str, seat_id: uuid.UUID | str
) -> int:
    """End one seat (a player leaving, or the GM taking a lost phone's place away): its token stops
    working and its station is free. Returns the game's version afterwards."""
    key = game_key(game_id)
    async with locked(session_factory, key) as game:
        seat = await game.session.scalar(
            select(Seat).where(
                Seat.id == _seat_key(seat_id), Seat.game_id == key, Seat.revoked_at.is_(None)
            )
        )
        if seat is None:
            raise ServiceError("NO_SUCH_SEAT", message("no_such_seat_or_freed"))
        await end_seats(game, [seat])
    return game.version


async def free_address(
    session_factory: SessionFactory, game_id: uuid.UUID | str, taken_from: str
) -> int:
    """The GM frees every seat of the game taken from one address (a stranger who took the
    stations), in one transaction: each seat ends as `revoke_seat` ends one. Returns how many."""
    key = game_key(game_id)
    async with locked(session_factory, key) as game:
        seats = (
            await game.session.scalars(
                select(Seat)
                .where(
                    Seat.game_id == key, Seat.taken_from == taken_from, Seat.revoked_at.is_(None)
                )
                .order_by(Seat.created_at)
            )
        ).all()
        if not seats:
            raise ServiceError("NO_SUCH_SEAT", message("no_seat_from_address"))
        await end_seats(game, seats)
    return len(seats)


async def end_seats(game: LockedGame, seats: Sequence[Seat]) -> None:
    """Seats' tokens stop working and their crews are unseated, in the caller's transaction."""
    for seat in seats:
        seat.revoked_at = datetime.now(UTC)
    await tell_seats_ended(game.session, game.game_id)
    for seat in seats:
        await _unseat_if_manned(game, seat.ship, seat.station, str(seat.id))
    await realign(game)  # a move queued for those stations happened (M-SEATS-1)


async def free_seat(
    session_factory: SessionFactory, game_id: uuid.UUID | str, ship: str, station: str
) -> int:
    """The GM frees a station, whoever holds it: its seat's token stops working and the crew is
    unseated. Returns the game's version afterwards."""
    key = game_key(game_id)
    async with locked(session_factory, key) as game:
        crew = _crew(game, ship, station)
        ended = await _end_claims(game.session, key, ship, station)
        if crew is None and not ended:
            raise ServiceError("STATION_EMPTY", message("nobody_at_station"), 409)
        if ended:
            await tell_seats_ended(game.session, key)
        await _unseat_if_manned(game, ship, station, crew["seat"] if crew else None)
        await realign(game)  # a move queued for that station happened (M-SEATS-1)
    return game.version


async def is_gm_token(
    session_factory: SessionFactory, game_id: uuid.UUID | str, token: str | None
) -> bool:
    return await token_owner(session_factory, game_id, token) == "gm"


async def seat_by_token(
    session_factory: SessionFactory, game_id: uuid.UUID | str, token: str | None
) -> SeatInfo | None:
    """The live seat this token opens in this game, or None (unknown, revoked, other game, GM)."""
    owner = await token_owner(session_factory, game_id, token)
    return owner if isinstance(owner, SeatInfo) else None


async def seats_of(session_factory: SessionFactory, game_id: uuid.UUID | str) -> list[SeatInfo]:
    """Every live seat of a game, for the GM's crew list."""
    async with session_factory() as session:
        seats = await session.scalars(
            select(Seat)
            .where(Seat.game_id == game_key(game_id), Seat.revoked_at.is_(None))
            .order_by(Seat.created_at)
        )
        return [_info(seat) for seat in seats]


async def token_elsewhere(session_factory: SessionFactory, token: str) -> bool:
    """Whether a token that does not open this game opens another one (a seat or a GM).

    It lets a refusal say 403 "not this game" instead of 401 "unknown token". Only a caller who
    holds the token learns this, so it tells nobody anything new.
    """
    digest = token_hash(token)
    async with session_factory() as session:
        seat = await session.scalar(
            select(Seat.id).where(Seat.token_hash == digest, Seat.revoked_at.is_(None)).limit(1)
        )
        if seat is not None:
            return True
        game = await session.scalar(select(Game.id).where(Game.gm_token_hash == digest).limit(1))
    return game is not None


async def revoked_among(
    session_factory: SessionFactory, seat_ids: Iterable[uuid.UUID]
) -> set[uuid.UUID]:
    """Which of these seats no longer hold their station (freed, revoked, or gone)."""
    wanted = set(seat_ids)
    if not wanted:
        return set()
    async with session_factory() as session:
        live = await session.scalars(
            select(Seat.id).where(Seat.id.in_(wanted), Seat.revoked_at.is_(None))
        )
        return wanted - set(live)


# --- Which phones are connected, across processes ----------------------------------------------
#
# Each process knows which seats have a station socket open on it (app/web/ws.py, SeatWatch). So
# that a GM's page answered by any process can tell, each process stamps `last_seen_at` on the
# seats it holds sockets for, when one connects and every PRESENCE_SECONDS after; and clears it
# when a seat's last socket there closes. A seat stamped within ONLINE_SECONDS is online. The
# database's clock decides, so processes need not agree on the time.

PRESENCE_SECONDS = 5.0
ONLINE_SECONDS = 3 * PRESENCE_SECONDS  # two missed stamps: a process killed without closing


async def mark_seen(session_factory: SessionFactory, seat_ids: Iterable[uuid.UUID]) -> None:
    """These seats have a socket open in this process now."""
    seats = list(seat_ids)
    if not seats:
        return
    async with autocommit(session_factory) as session:
        await session.execute(
            update(Seat)
            .where(Seat.id.in_(seats), Seat.revoked_at.is_(None))
            .values(last_seen_at=func.now())
        )


async def mark_gone(session_factory: SessionFactory, seat_ids: Iterable[uuid.UUID]) -> None:
    """These seats' last sockets in this process closed. A phone already back on another process
    is stamped again by that process within PRESENCE_SECONDS."""
    seats = list(seat_ids)
    if not seats:
        return
    async with autocommit(session_factory) as session:
        await session.execute(update(Seat).where(Seat.id.in_(seats)).values(last_seen_at=None))


async def seen_recently(session_factory: SessionFactory, game_id: uuid.UUID | str) -> set[str]:
    """The ids of a game's live seats that some process holds a socket for."""
    since = func.now() - timedelta(seconds=ONLINE_SECONDS)
    async with autocommit(session_factory) as session:
        seats = await session.scalars(
            select(Seat.id).where(
                Seat.game_id == game_key(game_id),
                Seat.revoked_at.is_(None),
                Seat.last_seen_at >= since,
            )
        )
        return {str(seat) for seat in seats}


async def _end_claims(session: AsyncSession, game_id: uuid.UUID, ship: str, station: str) -> int:
    ended = await session.execute(
        update(Seat)
        .where(
            Seat.game_id == game_id,
            Seat.ship == ship,
            Seat.station == station,
            Seat.revoked_at.is_(None),
        )
        .values(revoked_at=datetime.now(UTC))
    )
    return int(ended.rowcount)  # type: ignore[attr-defined]


async def _unseat_if_manned(game: LockedGame, ship: str, station: str, seat: str | None) -> None:
    crew = _crew(game, ship, station)
    if crew is None or (seat is not None and crew["seat"] != seat):
        return  # the GM already unseated them; only the token had to go
    await game.apply(
        {"type": "UnseatCrew", "ship": ship, "station": station},
        Actor.system(),
        f"unseat:{crew['seat']}:{game.version}",
    )


def _crew(game: LockedGame, ship: str, station: str) -> dict[str, str] | None:
    found = game.state["ships"].get(ship, {}).get("stations", {}).get(station)
    if found is None:
        raise ServiceError(
            "NO_SUCH_STATION", message("no_such_station_here", ship=ship, station=station)
        )
    crew: dict[str, str] | None = found["crew"]
    return crew


def _seat_key(seat_id: uuid.UUID | str) -> uuid.UUID:
    if isinstance(seat_id, uuid.UUID):
        return seat_id
    try:
        return uuid.UUID(seat_id)
    except (ValueError, TypeError, AttributeError):
        raise ServiceError("NO_SUCH_SEAT", message("no_such_seat")) from None


async def change_position(
    session_factory: SessionFactory,
    game_id: uuid.UUID | str,
    seat_id: uuid.UUID,
    station: str,
    command_id: str,
) -> CommandResult:
    """M-SEATS-1: the seat's player moves to `station` of their ship (at once, or queued by the
    engine), and the seat row moves with them: its phone then acts for the new station."""
    key = game_key(game_id)
    async with locked(session_factory, key) as game:
        seat = await game.session.scalar(
            select(Seat).where(Seat.id == seat_id, Seat.game_id == key, Seat.revoked_at.is_(None))
        )
        if seat is None:
            raise ServiceError("NO_SUCH_SEAT", message("no_such_seat_or_freed"))
        result = await game.apply(
            {"type": "ChangePosition", "ship": seat.ship, "station": station},
            Actor.for_seat(str(seat.id)),
            command_id,
        )
        await realign(game)
    return result
