"""The websocket hub, split by idea: the sockets (connections), what each is sent (push), how this
process hears of commits in others (listener), and the rooms that tie them (hub)."""

from .connections import Audience, Format
from .hub import Hub

__all__ = ["Audience", "Format", "Hub"]
