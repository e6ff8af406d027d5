#!/bin/sh
# Fills a demo pim store and shows it: contacts (two imported from an xCard feed, one of them
# typed again and merged), a repeating meeting, an event with attendees and alarms, tasks for
# them, then the task list (by urgency), the agenda, the alarms, the calendar exported as
# iCalendar, and a record file opened in pim.
# Uses $PIM_STORE if set, else a new temporary store, never the user's own. Run from the
# repository: Data/demo.sh
set -e
PIM=${PIM:-.build/debug/pim}
PIM_STORE=${PIM_STORE:-$(mktemp -d)/demo.sqlite}
export PIM_STORE
echo "demo store: $PIM_STORE"
pim() { "$PIM" "$@" > /dev/null; }

pim contacts add Ada Lovelace --email work:ada@analytical.example --phone "mobile:+44 7700 900001" --org "Analytical Engines" --title Engineer --birthday 1815-12-10
pim contacts add Charles Babbage --email charles@analytical.example --org "Analytical Engines"
pim contacts add Grace Hopper --email grace@navy.example --nickname Amazing
pim contacts add "Analytical Engines" --kind organization --email info@analytical.example
pim contacts group add Engineers ada charles grace
# Contacts from an address book's export (xCard; EWS, CalDAV/CardDAV, GData... alike): pim-import(1).
"$PIM" import "$(dirname "$0")/team.xcard.xml" --source team

pim events add Standup --start "tomorrow 9:15" --duration 15m --repeat weekdays --location "Room 1" --attendee ada --attendee charles
pim events add Design review --start "next tue 14:00" --duration 1h30m --attendee grace --attendee ada --location "Room 2" --alarm 1d --alarm 15m
pim events add Conference --start "in 10 days" --all-day --repeat "FREQ=YEARLY"

pim tasks add Prepare the review slides --due "next mon 17:00" --priority H --project work.review --tag slides --for-event "design review" --assignee ada
pim tasks add Book the room --due tomorrow --priority M --project work.review --for-event "design review"
pim tasks add Buy oat milk --due "today 18:00" --project home --tag shopping
pim tasks add Renew passport --due eom --priority L --project home
pim tasks add Read the notes on the engine --project reading --tag next
pim tasks add Water the plants --due "sat 10:00" --repeat weekly --project home
pim tasks annotate "Book the room" asked facilities: room 2 is free at 14:00

"$PIM" tasks list
echo
# Luigi typed here and imported with the team: duplicates finds him twice, merge makes one.
pim contacts add "Menabrea, Luigi" --phone "work:+39 011 555 0100" --notes "Wrote up Babbage's Turin lecture"
"$PIM" contacts duplicates
"$PIM" contacts merge "Luigi Menabrea" "Menabrea, Luigi" --yes
echo
"$PIM" events agenda --days 7
echo
# What goes off in the next two weeks (a cron notifier asks: pim alarms --from -5m --to now).
"$PIM" alarms --to "in 14 days"
echo
# The calendar for other programs (iCalendar; contacts export writes vCard): pim-events(1).
calendar="$(dirname "$PIM_STORE")/calendar.ics"
"$PIM" events export -o "$calendar"
echo "calendar exported: $(grep -c '^BEGIN:VEVENT' "$calendar") events in $calendar"
# Each record also has a file for desktop search (pim-record(5)); a search hit opens in pim.
records=$("$PIM" records path)
echo "record files: $(find "$records" -type f -name 'p*.pim*' | wc -l) in $records"
"$PIM" open "$records/Person/p1.pimcontact"
