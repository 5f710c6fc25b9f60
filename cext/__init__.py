"""Compiled cores: the shared game-core base type, one module per game, and the ISMCTS loop."""
