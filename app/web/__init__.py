"""The web layer: one router per audience (station, GM, display, join), the JSON API, websockets."""
