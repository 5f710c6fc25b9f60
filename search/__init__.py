"""Search and agents: information-set MCTS, agent specs and whole-game matches."""
from search.config import Budget, SearchConfig
from search.ismcts import MoveStats, SearchResult, search

__all__ = ["Budget", "MoveStats", "SearchConfig", "SearchResult", "search"]
