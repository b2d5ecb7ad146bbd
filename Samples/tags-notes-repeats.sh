#!/usr/bin/env bash
# Two machines, one remote: each adds its own tags and notes to one todo and
# completes the same instance of a weekly todo; after syncing both keep every
# tag and note and one next instance. Then an edit synced from one machine is
# undone there, and the undo reaches the other. Everything lives in a
# throwaway folder.
set -euo pipefail
docket=${DOCKET:-docket}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
say() { printf '\n$ %s\n' "$*"; }
laptop() { say "(laptop) docket $*"; $docket -C "$work/laptop" "$@"; }
desk() { say "(desk) docket $*"; $docket -C "$work/desk" "$@"; }

git init -q --bare -b main "$work/remote.git"
$docket clone "$work/remote.git" "$work/laptop" >/dev/null
$docket clone "$work/remote.git" "$work/desk" >/dev/null
milk=$($docket -C "$work/laptop" add Buy milk +errand)
water=$($docket -C "$work/laptop" add Water plants --every week --due 2026-11-28)
$docket -C "$work/laptop" sync >/dev/null
$docket -C "$work/desk" pull >/dev/null

laptop tag "$milk" +shop
laptop note "$milk" called, left a message
laptop done "$water"
desk tag "$milk" +home -errand
desk note "$milk" closed on Sunday
desk done "$water"
laptop sync
desk sync
laptop sync
laptop list --all
say "(laptop) cat todos/${milk:0:2}/…"
cat "$work"/laptop/todos/*/"$(echo "$milk" | tr a-f A-F)"*.json
laptop merges -n 1

desk priority "$milk" high
desk sync
laptop pull
desk undo
desk sync
laptop pull
laptop show "$milk"
