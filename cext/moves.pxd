# One move encoding for every game: a move is an int, its kind in the high bits and its
# argument (a card, a deck, a region, a packed placement...) in the low 24 bits, so the legal
# moves sorted as ints are grouped by kind. Read a move with move_kind() and move_arg(), as
# Stockfish's Move has from_sq(); a game that packs several numbers into the argument gives
# each one a named inline accessor next to its move kinds. Exported to Python by cext.core.

cdef enum:
    MOVE_KIND_SHIFT = 24
    MOVE_ARG_MASK = (1 << 24) - 1

cdef inline int make_move(int kind, int arg) noexcept nogil:
    """The move of `kind` (0..127) with argument `arg` (0 .. 2**24 - 1). A game gives kind 0
    to its commonest move, whose ints are then just their arguments."""
    return (kind << MOVE_KIND_SHIFT) | arg

cdef inline int move_kind(int move) noexcept nogil:
    return move >> MOVE_KIND_SHIFT

cdef inline int move_arg(int move) noexcept nogil:
    return move & MOVE_ARG_MASK
