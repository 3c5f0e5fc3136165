# Shared by the bench/ scripts (sourced after scripts/lib.sh).

# The median of numbers given as arguments, or one per line on standard input: the middle
# one, or the mean of the middle two for an even count (what Python's statistics.median
# gives, so the shell and Python benchmarks agree).
median() {
    if [ $# -gt 0 ]; then printf '%s\n' "$@"; else cat; fi | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) exit 1; print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
