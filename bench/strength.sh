#!/usr/bin/env bash
# The project's strength figures: for each game, 2 players, fixed seeds, duplicate deals.
#   bash bench/strength.sh [games per match] [out dir] [game ...]
# Each match prints win shares with 95% Wilson intervals and, for two agents, Elo with its
# interval; records, summaries and plots go to <out dir>/<game>/<match>/.
set -u
N=${1:-60}
OUT=${2:-out/strength}
shift 2 2>/dev/null || true
GAMES=${*:-khiva khan taschkent kilim}
for g in $GAMES; do
  n=$N
  [ "$g" = kilim ] && n=$(( (N + 1) / 2 ))      # Kilim games are long: half as many
  d="$OUT/$g"
  mkdir -p "$d"
  run() {  # name, then arena arguments
    local name=$1; shift
    echo "== $g: $name ($n games)"
    caravan arena "$g" --players 2 --games "$n" --seed 2026 --out "$d/$name" "$@" 2>/dev/null
  }
  run ismcts-vs-random --agents ismcts:iterations=1000,random
  run ismcts-vs-heuristic --agents ismcts:iterations=1000,heuristic
  run pimc-vs-ismcts --agents pimc:iterations=1000,worlds=10,ismcts:iterations=1000
  run so-vs-mo --agents ismcts:iterations=1000,mode=so,ismcts:iterations=1000,mode=mo
  run ladder --agents heuristic --ladder ismcts:iterations=250,1000,4000
done
