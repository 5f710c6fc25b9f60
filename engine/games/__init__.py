"""The Python half of each game: notation, JSON (full states and seat views), the checks of a
loaded position, rendering and narration. Each module subclasses its game's C core
(cext/<game>.pyx), which holds the rules and the state."""
