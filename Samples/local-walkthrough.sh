#!/usr/bin/env bash
# A day with Docket on one machine, in a throwaway store: todos, a project
# with a task and recorded time, a commit, and the history in docket and git.
set -euo pipefail
docket=${DOCKET:-docket}
export DOCKET_DIR=$(mktemp -d)/lists
trap 'rm -rf "$(dirname "$DOCKET_DIR")"' EXIT
say() { printf '\n$ %s\n' "$*"; }

say docket init; $docket init "$DOCKET_DIR"
say docket add "Buy milk" --due tomorrow; milk=$($docket add "Buy milk" --due tomorrow); echo "$milk"
say docket add "Call Anna"; anna=$($docket add "Call Anna"); echo "$anna"
say docket done "$anna"; $docket done "$anna"
say docket project add Party; party=$($docket project add Party); echo "$party"
say docket task add "$party" "Buy Beer" --due saturday; beer=$($docket task add "$party" "Buy Beer" --due saturday); echo "$beer"
say docket task start "$beer"; $docket task start "$beer"
sleep 1
say docket task stop "$beer"; $docket task stop "$beer"
say docket list --all; $docket list --all
say docket project show "$party"; $docket project show "$party"
say docket status; $docket status
say docket commit; $docket commit
say docket edit "$milk" "Buy oat milk"; $docket edit "$milk" "Buy oat milk"
say docket commit -m "Oat milk instead"; $docket commit -m "Oat milk instead"
say docket log; $docket log
say git log --stat -1; git -C "$DOCKET_DIR" log --stat -1 --format='%h %s'
