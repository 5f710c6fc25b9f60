"""Caravan's Python side: the game registry, notation helpers and the command line."""
from engine.registry import GAMES, GameInfo, game_info, new_game

__all__ = ["GAMES", "GameInfo", "game_info", "new_game"]
