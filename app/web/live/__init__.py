"""The websocket hub (hub.py), and how this process hears of commits in others (listener.py)."""

from .hub import Audience, Format, Hub

__all__ = ["Audience", "Format", "Hub"]
