"""Caravan's Python side: the game registry, the games' Python halves, the checked loading of
states and views, the protocol and the command line."""
from cext.core import IllegalMoveError
from engine.registry import GAMES, GameInfo, from_json, from_view, game_info, new_game
from engine.validation import IllegalPositionError, ViewError

__all__ = ["GAMES", "GameInfo", "IllegalMoveError", "IllegalPositionError", "ViewError",
           "from_json", "from_view", "game_info", "new_game"]
