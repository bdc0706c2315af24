"""The core of the rules: state, the one entry point `apply`, the turn and its views. It plugs
in the switchable modules through hooks.py only."""
