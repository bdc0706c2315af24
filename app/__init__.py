"""Bridge Crew: a server that runs starship combat for LARP events."""
