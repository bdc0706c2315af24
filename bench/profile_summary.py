"""Summarise py-spy's raw (collapsed) stacks: where the samples are, by function.

    .venv/bin/python bench/profile_summary.py /tmp/prof/one-0.txt [--top 30] [--match app/]

Inclusive: share of samples with the function anywhere on the stack (each counted once per
stack). Self: share with it on top. Idle (an event loop waiting) is what py-spy leaves out
unless recorded with --idle.
"""

from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path

FRAME = re.compile(r"^(?P<func>.*?) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")


def short(frame: str) -> str:
    match = FRAME.match(frame.strip())
    if not match:
        return frame.strip()
    path = match["file"]
    for marker in ("site-packages/", "/work/main/", "lib/python3.11/"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{match['func']} ({path})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--match", default=None, help="inclusive list: only frames containing this")
    args = parser.parse_args()
    for file in args.files:
        inclusive: collections.Counter[str] = collections.Counter()
        self_time: collections.Counter[str] = collections.Counter()
        total = 0
        for line in file.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            n = int(count)
            total += n
            frames = [short(f) for f in stack.split(";")]
            # The thread name comes first in py-spy's raw output; drop frames without a file.
            frames = [f for f in frames if "(" in f]
            if not frames:
                continue
            self_time[frames[-1]] += n
            for frame in set(frames):
                inclusive[frame] += n
        print(f"== {file} ({total} samples)")
        print("-- inclusive")
        shown = 0
        for frame, n in inclusive.most_common():
            if args.match and args.match not in frame:
                continue
            print(f"{100 * n / total:5.1f}%  {frame}")
            shown += 1
            if shown >= args.top:
                break
        print("-- self")
        for frame, n in self_time.most_common(args.top):
            print(f"{100 * n / total:5.1f}%  {frame}")


if __name__ == "__main__":
    main()
