#!/bin/bash
# Times pim commands on a store: each command R times (default 7), min and median wall time and
# the median peak RSS, as a Markdown table row. Write commands run on a fresh copy of the store
# each time (the copy is not timed), so every run does the same work.
# usage: Benchmarks/pim/bench.sh [STORE] [R] > table.md
set -u
PIM=${PIM:-.build/release/pim}
S=${1:-/tmp/pim-big.sqlite}
R=${2:-7}
export PIM_NOW=${PIM_NOW:-2026-03-16T09:00:00Z} NO_COLOR=1 TZ=UTC
W=/tmp/pim-bench-$$.sqlite
trap 'rm -f $W $W-wal $W-shm $W-lock /tmp/pim-bench-$$.time' EXIT

run() { # kind(r|w) label args...
  local kind=$1 label=$2; shift 2
  local times=() mems=()
  for _ in $(seq "$R"); do
    local store=$S
    if [ "$kind" = w ]; then rm -f $W-wal $W-shm; cp "$S" $W; store=$W; fi
    /usr/bin/time -f "%e %M" -o /tmp/pim-bench-$$.time "$PIM" "$@" --store "$store" >/dev/null 2>/tmp/pim-bench-$$.err
    status=$?
    read -r t m < <(tail -1 /tmp/pim-bench-$$.time)
    times+=("$t"); mems+=("$m")
  done
  local sorted=($(printf '%s\n' "${times[@]}" | sort -n)) msorted=($(printf '%s\n' "${mems[@]}" | sort -n))
  local n=${#sorted[@]}
  printf '| `%s` | %d | %d | %.1f | %s |\n' "$label" "$(echo "${sorted[0]} * 1000 / 1" | bc)" \
    "$(echo "${sorted[$((n / 2))]} * 1000 / 1" | bc)" "$(echo "scale=1; ${msorted[$((n / 2))]} / 1024" | bc)" "$status"
}

echo "| command | min ms | median ms | peak RSS MB | exit |"
echo "|---|---:|---:|---:|---:|"
run r "tasks list --help (start-up, no store)" tasks list --help
run r "tasks list" tasks list
run r "tasks list --all" tasks list --all
run r "tasks list --where 'priority == 1 AND due < \$NOW'" tasks list --where 'priority == 1 AND due < $NOW'
run r "tasks list --project work" tasks list --project work
run r "tasks list --tag next" tasks list --tag next
run r "tasks list --due-before eow" tasks list --due-before eow
run r "tasks list --status done --limit 10" tasks list --status done --limit 10
run r "tasks show 2558 (number)" tasks show 2558
run r "tasks show 1bea6526 (UUID prefix)" tasks show 1bea6526
run r "tasks show 'Release the budget 2556' (title)" tasks show 'Release the budget 2556'
run r "tasks search budget slides" tasks search budget slides
run w "tasks add Buy milk --due tomorrow --tag next" tasks add Buy milk --due tomorrow --tag next
run w "tasks done 2558" tasks done 2558
run w "tasks start 2887" tasks start 2887
run w "tasks edit 2675 --title x" tasks edit 2675 --title x
run w "tasks delete 2675 --yes" tasks delete 2675 --yes
run r "events list" events list
run r "events list --from today --to eow" events list --from today --to eow
run r "events list --from 2026-03-16 --to 2026-04-16" events list --from 2026-03-16 --to 2026-04-16
run r "events agenda --days 1" events agenda --days 1
run r "events agenda --days 7" events agenda --days 7
run r "events agenda --days 30" events agenda --days 30
run r "events show 6" events show 6
run w "events add Lunch --start 'tomorrow 12:00' --duration 1h" events add Lunch --start 'tomorrow 12:00' --duration 1h
run w "events edit 6 --location Zoom" events edit 6 --location Zoom
run r "contacts list" contacts list
run r "contacts search müller" contacts search müller
run r "contacts show 2501 (number)" contacts show 2501
run r "contacts show 'Mateo Haddad 2499' (name)" contacts show 'Mateo Haddad 2499'
run w "contacts add Jane Doe --email jane@example.org" contacts add Jane Doe --email jane@example.org
run w "contacts edit 2501 --nickname Teo" contacts edit 2501 --nickname Teo
run w "undo" undo
U=$S.undone; rm -f $U $U-wal $U-shm; cp "$S" $U; "$PIM" undo --store $U >/dev/null; S=$U
run w "redo (after an undo)" redo
rm -f $U $U-wal $U-shm $U-lock
