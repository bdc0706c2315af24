"""The authoritative game server's handlers: every change to a game goes through here.

One transaction per change to a game (lock the game row, apply the rules, store state + events +
the command, NOTIFY, commit), then a hand-off to this process's live hub: app/service/commands.py,
`locked`. Web routes stay thin: they authenticate, call one of these, and render.
"""

from .commands import (
    Viewer,
    canonical,
    load_state,
    replay_state,
    run_command,
    view_for,
)
from .demo import create_demo_game, ensure_demo_game
from .errors import ServiceError
from .games import (
    GameInfo,
    create_game,
    events_after,
    game_by_join_code,
    game_info,
    token_hash,
)
from .seats import (
    SeatInfo,
    create_seat,
    free_seat,
    is_gm_token,
    phone_seat,
    phone_seat_tokens,
    revoke_seat,
    seat_by_token,
    seats_of,
)

__all__ = [
    "GameInfo",
    "SeatInfo",
    "ServiceError",
    "Viewer",
    "canonical",
    "create_demo_game",
    "create_game",
    "create_seat",
    "ensure_demo_game",
    "events_after",
    "free_seat",
    "game_by_join_code",
    "game_info",
    "is_gm_token",
    "load_state",
    "phone_seat",
    "phone_seat_tokens",
    "replay_state",
    "revoke_seat",
    "run_command",
    "seat_by_token",
    "seats_of",
    "token_hash",
    "view_for",
]
