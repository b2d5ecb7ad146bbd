#!/usr/bin/env bash
# Two machines, one remote: concurrent edits to the same todo (different
# fields, then the same field), both synced, then the merged list and what
# the merges decided. Everything lives in a throwaway folder.
set -euo pipefail
docket=${DOCKET:-docket}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
say() { printf '\n$ %s\n' "$*"; }
laptop() { say "(laptop) docket $*"; $docket -C "$work/laptop" "$@"; }
desk() { say "(desk) docket $*"; $docket -C "$work/desk" "$@"; }

say git init --bare -b main remote.git
git init -q --bare -b main "$work/remote.git"
say docket clone remote.git laptop
$docket clone "$work/remote.git" "$work/laptop"
milk=$($docket -C "$work/laptop" add "Buy milk" --due tomorrow)
laptop add "Call Anna"
laptop sync
say docket clone remote.git desk
$docket clone "$work/remote.git" "$work/desk"

echo; echo "# Both machines edit 'Buy milk' offline: different fields."
laptop edit "$milk" "Buy oat milk"
desk done "$milk"
laptop sync
desk sync
laptop sync

echo; echo "# Both machines edit the same field: the later edit wins, the other is kept in the report."
laptop edit "$milk" "Buy oat milk, 2 litres"
sleep 0.01
desk edit "$milk" "Buy soy milk"
laptop sync
desk sync
laptop sync

laptop list --all
desk list --all
desk merges
say git log --graph --oneline
git -C "$work/desk" log --graph --oneline
