"""Props over MQTT: the room's lights, sirens and buttons follow the game (docs/props.md)."""

from .bridge import PropsBridge

__all__ = ["PropsBridge"]
