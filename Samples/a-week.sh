#!/usr/bin/env bash
# A week with docket, as a Taskwarrior user moving in would live it: two
# machines (a laptop and a desk) and one remote, with the clock set by
# faketime (in Europe/Berlin). Times of day, a wait, a dependency, filters
# and a context, a repeating task, and an undo after a sync that merged the
# other machine's work. Everything lives in a throwaway folder.
# Needs faketime (apt-get install faketime). DOCKET names the docket to run.
set -euo pipefail
docket=${DOCKET:-docket}
command -v faketime >/dev/null || { echo "a-week.sh needs faketime: apt-get install faketime" >&2; exit 1; }
export TZ=Europe/Berlin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now=""

# The moment the next commands run at, and a heading that says it.
at() { now="$1"; printf '\n## %s\n' "$(faketime "$now" date '+%A %-d %B, %H:%M')"; }
# Runs docket on a machine at the moment, as that machine's author; `say` shows the command first.
on() {
    local machine=$1; shift
    GIT_AUTHOR_NAME="Ana ($machine)" GIT_AUTHOR_EMAIL="ana@$machine.example" \
        GIT_COMMITTER_NAME="Ana ($machine)" GIT_COMMITTER_EMAIL="ana@$machine.example" \
        faketime "$now" "$docket" -C "$work/$machine" "$@"
}
say() { local machine=$1; shift; printf '\n$ (%s) docket %s\n' "$machine" "$*"; on "$machine" "$@"; }

at "2026-11-30 08:00:00"
git init -q --bare -b main "$work/remote.git"
faketime "$now" "$docket" clone "$work/remote.git" "$work/laptop" >/dev/null
mom=$(on laptop add Call mom --due tomorrow 9am)
report=$(on laptop add Submit the report +work --due wed 17:00 --priority high)
milk=$(on laptop add Buy milk +errand)
on laptop add Book the dentist +health --priority medium >/dev/null
on laptop add Water the plants +home --priority high >/dev/null
passport=$(on laptop add Renew passport --wait in 2 weeks)
garden=$(on laptop project add Garden)
seeds=$(on laptop task add "$garden" Buy seeds +garden)
plant=$(on laptop task add "$garden" Plant the seeds +garden --depends "$seeds")
mow=$(on laptop task add "$garden" Mow the lawn +garden --every week --due sat)
say laptop
say laptop list --waiting
say laptop list --project Garden
say laptop list --ready --sort priority
on laptop sync >/dev/null
faketime "$now" "$docket" clone "$work/remote.git" "$work/desk" >/dev/null

at "2026-12-01 09:30:00"
say desk
say desk done "$mom"
say laptop priority "$milk" low
say desk done "$milk"
on desk sync >/dev/null
say laptop sync
say laptop undo
say laptop show "$milk"

at "2026-12-02 12:00:00"
say laptop context set work +work
say laptop context work
say laptop
say laptop done "$report"
say laptop context none
say laptop list --sort priority
say laptop list -health
say laptop done "$seeds"
say laptop list --project Garden

at "2026-12-05 10:00:00"
on laptop sync >/dev/null
say desk pull
say desk done "$mow"
on desk sync >/dev/null
on laptop sync >/dev/null

at "2026-12-14 08:00:00"
say laptop
on laptop sync >/dev/null
on desk sync >/dev/null
if [ "$(on laptop list --all --json)" = "$(on desk list --all --json)" ]; then same=yes; else same=no; fi
printf '\nBoth machines hold the same items: %s\n' "$same"
[ "$same" = yes ]
