"""The server SIGKILLed at random points of a scripted game, again and again: after every restart
the stored state is the replay of the stored commands, every acknowledged command is there exactly
once, and every screen has come back by itself showing the game as it is."""

from pathlib import Path

import pytest

from .harness import run_chaos


@pytest.mark.slow
async def test_a_game_survives_ten_kills_without_losing_or_repeating_a_command(
    db_url: str, tmp_path: Path
) -> None:
    report = await run_chaos(db_url, tmp_path, turns=20, kills=10, seed=20240601)
    print(report.summary())
    assert report.kills >= 10 and report.turns >= 20
    assert report.lost == [] and report.duplicates == [] and report.problems == []
    assert report.resyncs_checked >= 30  # three screens after each of the ten restarts
    assert report.acknowledged > 100
    # The phones' retries were exercised: some commands were committed by a server that was
    # killed before it could answer, and the retry (same command id) got the stored answer.
    assert report.transport_errors > 0 and report.answered_from_store >= 1
