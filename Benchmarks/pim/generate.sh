#!/bin/sh
# Builds the large store: a few records by pim itself (so the schema, metadata and journal are
# pim's own), then years of records by generate.py, then real pim commands that fill the undo
# journal to its limit (200 entries, Journal.limit) on the large store.
# usage (from the repository, after swift build -c release --product pim):
#   Benchmarks/pim/generate.sh [STORE] [JOURNAL_COMMANDS]
set -eu
PIM=${PIM:-.build/release/pim}
S=${1:-/tmp/pim-big.sqlite}
N=${2:-210}
export PIM_NOW=${PIM_NOW:-2026-03-16T09:00:00Z} NO_COLOR=1
here=$(dirname "$0")
rm -f "$S" "$S-wal" "$S-shm" "$S-lock"
$PIM contacts add Ada Lovelace --email work:ada@example.org --phone mobile:+44123456 --birthday 1815-12-10 --store "$S" >/dev/null
$PIM events add Standup --start "2021-01-04 9:15" --duration 15m --repeat weekdays --attendee ada --store "$S" >/dev/null
$PIM tasks add Prepare slides --due "2026-03-20 17:00" --priority H --project work --tag next --store "$S" >/dev/null
python3 "$here/generate.py" "$S"
# The journal: real commands (adds, edits, completions) as a day of use writes them.
i=0
while [ $i -lt "$N" ]; do
  case $((i % 3)) in
    0) $PIM tasks add "Journal task $i" --project work --tag next --due "2026-03-2$((i % 9)) 17:00" --store "$S" >/dev/null ;;
    1) $PIM tasks edit "$((20000 - i))" --title "Edited $i" --store "$S" >/dev/null ;;
    2) $PIM tasks done "$((19000 - i))" --store "$S" >/dev/null ;;
  esac
  i=$((i + 1))
done
python3 -c "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); print('journal entries', db.execute('SELECT COUNT(*) FROM ZJOURNALENTRY').fetchone()[0], 'tasks', db.execute('SELECT COUNT(*) FROM ZTASK').fetchone()[0])" "$S"
ls -l "$S"
