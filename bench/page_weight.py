"""Page weight: a station page's first load in headless Chromium at phone size, every byte counted.

Starts the server (embedded PostgreSQL in a temporary directory, loopback only), makes a game and
a seat through the API, gives a fresh browser context (no cache) the seat's cookie, and opens
/play/{game}. Counted through the DevTools protocol: every HTTP response as it came over the wire
(headers + body, compressed or not: `encodedDataLength`), plus the websocket's welcome push,
counted both ways the server may send it (settings' `ws_deflate`): as it is, and deflated as
uvicorn's permessage-deflate does it. Timing from navigation start: DOM interactive,
DOMContentLoaded, load, and the moment htmx's websocket is open (from then on the phone shows
and sends everything).

Two runs: loopback as is, and a "venue Wi-Fi phone" (CDP: 4x CPU slowdown, 20 ms latency,
20 Mbit/s down, 5 up). The server gzips text responses as it does in use.

    .venv/bin/python bench/page_weight.py [--audience station|gm|display] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import HttpPool, Run, ServerProcess  # also puts the repository on sys.path

from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
    "user_agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like "
    "Gecko) Chrome/126.0 Mobile Safari/537.36",
}
WIFI = {"latency": 20, "downloadThroughput": 20e6 / 8, "uploadThroughput": 5e6 / 8}
BUDGET_BYTES = 100 * 1024
BUDGET_SECONDS = 1.0
# Recorded in the page before anything else runs: when htmx's websocket opened.
OPEN_PROBE = """
document.addEventListener("htmx:wsOpen", function () {
  if (!window.__wsOpen) window.__wsOpen = performance.now();
}, true);
"""


def frame_size(data: bytes) -> int:
    return len(data) + (2 if len(data) < 126 else 4 if len(data) < 65536 else 10)


def deflated_size(texts: list[str]) -> int:
    """What the frames cost with uvicorn's permessage-deflate (12-bit window, memLevel 5, zlib's
    default level, one stream kept for the socket's life), frame headers included."""
    compressor = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -12, 5)
    return sum(
        frame_size((compressor.compress(t.encode()) + compressor.flush(zlib.Z_SYNC_FLUSH))[:-4])
        for t in texts
    )


async def measure(base: str, path: str, cookie: dict[str, str], phone_wifi: bool) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context(**PHONE)  # type: ignore[arg-type]
            await context.add_cookies([{**cookie, "url": base}])  # type: ignore[list-item]
            await context.add_init_script(OPEN_PROBE)
            page = await context.new_page()
            cdp = await context.new_cdp_session(page)
            await cdp.send("Network.enable")
            await cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
            if phone_wifi:
                await cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
                await cdp.send("Network.emulateNetworkConditions", {"offline": False, **WIFI})
            requests: dict[str, dict[str, Any]] = {}
            frames: list[str] = []
            handshake: list[int] = []

            def on_response(event: dict[str, Any]) -> None:
                response = event["response"]
                requests.setdefault(event["requestId"], {}).update(
                    url=response["url"],
                    status=response["status"],
                    encoding=_header(response.get("headers", {}), "content-encoding"),
                    type=event.get("type"),
                )

            def on_finished(event: dict[str, Any]) -> None:
                requests.setdefault(event["requestId"], {})["wire"] = event["encodedDataLength"]

            def on_frame(event: dict[str, Any]) -> None:
                frames.append(event["response"]["payloadData"])

            cdp.on("Network.responseReceived", on_response)
            cdp.on("Network.loadingFinished", on_finished)
            cdp.on("Network.webSocketFrameReceived", on_frame)
            cdp.on(
                "Network.webSocketHandshakeResponseReceived",
                lambda e: handshake.append(
                    len(e["response"].get("headersText") or "")
                    or sum(len(k) + len(v) + 4 for k, v in e["response"]["headers"].items()) + 40
                ),
            )
            started = time.perf_counter()
            await page.goto(base + path, wait_until="load")
            await page.wait_for_function("window.__wsOpen !== undefined", timeout=10_000)
            with contextlib.suppress(Exception):  # the welcome push follows the open
                await page.wait_for_function(
                    "document.querySelectorAll('[id]').length > 0", timeout=2_000
                )
            await asyncio.sleep(0.5)  # let the welcome frame land
            wall = time.perf_counter() - started
            timing = await page.evaluate(
                """() => {
                  const n = performance.getEntriesByType("navigation")[0];
                  return {interactive: n.domInteractive, dcl: n.domContentLoadedEventEnd,
                          load: n.loadEventEnd, ws_open: window.__wsOpen};
                }"""
            )
            await context.close()
        finally:
            await browser.close()
    rows = []
    for info in requests.values():
        if "url" not in info or info["url"].startswith("data:"):
            continue
        rows.append(
            {
                "url": info["url"].replace(base, ""),
                "status": info.get("status"),
                "wire": info.get("wire", 0),
                "encoding": info.get("encoding") or "-",
            }
        )
    return {
        "profile": "phone on venue Wi-Fi (4x CPU, 20 ms, 20 Mbit/s)" if phone_wifi else "loopback",
        "responses": rows,
        "http_wire": sum(r["wire"] for r in rows) + sum(handshake),  # + the 101 response
        "ws_frames": len(frames),
        "ws_text": sum(len(f.encode()) for f in frames),
        "ws_deflated": deflated_size(frames),
        "ws_plain": sum(frame_size(f.encode()) for f in frames),
        "timing_ms": timing,
        "wall_s": wall,
    }


def _header(headers: dict[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def report(results: list[dict[str, Any]]) -> str:
    out = []
    first = results[0]
    out.append("| response | status | on the wire (B) | encoding |")
    out.append("|---|---|---|---|")
    for row in sorted(first["responses"], key=lambda r: -r["wire"]):
        out.append(f"| {row['url']} | {row['status']} | {row['wire']} | {row['encoding']} |")
    out.append("")
    out.append(
        "| profile | HTTP on the wire | + websocket welcome (deflated ≈) | total | total, "
        "welcome not deflated | DOM interactive | DOMContentLoaded | load | websocket open | "
        "verdict |"
    )
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        total = r["http_wire"] + r["ws_deflated"]
        plain = r["http_wire"] + r["ws_plain"]
        t = r["timing_ms"]
        ok_bytes = max(total, plain) < BUDGET_BYTES
        ok_time = (t["ws_open"] or 1e9) < BUDGET_SECONDS * 1000
        verdict = ("bytes ok" if ok_bytes else "bytes OVER") + (
            ", time ok" if ok_time else ", time OVER"
        )
        out.append(
            f"| {r['profile']} | {r['http_wire'] / 1024:.1f} KB | {r['ws_deflated'] / 1024:.1f} KB "
            f"({r['ws_text'] / 1024:.1f} KB text, {r['ws_frames']} frames) | "
            f"{total / 1024:.1f} KB | {plain / 1024:.1f} KB | {t['interactive']:.0f} ms | "
            f"{t['dcl']:.0f} ms | {t['load']:.0f} ms | {t['ws_open']:.0f} ms | {verdict} |"
        )
    return "\n".join(out)


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    workdir = Path(tempfile.mkdtemp(prefix="bridgecrew-weight-"))
    os.chmod(workdir, 0o755)  # noqa: S103 - as root, pgserver runs postgres as its own user
    from app.db.embedded import start_embedded

    pg = await asyncio.to_thread(start_embedded, workdir / "pg", "postgres")
    server: ServerProcess | None = None
    try:
        url = await asyncio.to_thread(Run(args, workdir, pg)._database, "weight")
        env = {**os.environ, "DATABASE_URL": url, "BRIDGECREW_DATA_DIR": str(workdir)}
        server = await ServerProcess("app.main:app", env, workdir / "server.log", None).ready()
        base = f"http://127.0.0.1:{server.port}"
        pool = HttpPool(server.port, 2)
        status, game = await pool.request("POST", "/api/games", {"scenario": "skirmish", "seed": 7})
        assert status == 201, game
        gid = game["game_id"]
        if args.audience == "station":
            status, seat = await pool.request(
                "POST", f"/api/games/{gid}/seats",
                {"ship": "kestrel", "station": "weapons", "name": "Ana", "character": None},
            )  # fmt: skip
            assert status == 201, seat
            cookie = {"name": f"bc_seat_{gid}", "value": seat["seat_token"]}
            path = f"/play/{gid}"
        elif args.audience == "gm":
            cookie = {"name": f"bc_gm_{gid}", "value": game["gm_token"]}
            path = f"/gm/{gid}"
        else:
            cookie = {"name": "unused", "value": "1"}
            path = f"/display/{gid}"
        # A game under way: a turn started, so the page shows a hand and the order form.
        await pool.request("POST", f"/api/games/{gid}/commands",
                           {"command_id": "w1", "type": "StartTurn"}, game["gm_token"])  # fmt: skip
        pool.close()
        results = []
        for phone_wifi in (False, True):
            results.append(await asyncio.wait_for(measure(base, path, cookie, phone_wifi), 120))
        return results
    finally:
        if server is not None:
            server.stop()
        with contextlib.suppress(Exception):
            await asyncio.to_thread(pg.stop)
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--audience", choices=("station", "gm", "display"), default="station")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    print(f"First load of the {args.audience} page, phone-sized Chromium, no cache:\n")
    print(report(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
