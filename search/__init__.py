"""Search and agents: information-set MCTS, agent specs and whole-game matches."""
from search.ismcts import SearchResult, MoveStats, search

__all__ = ["SearchResult", "MoveStats", "search"]
