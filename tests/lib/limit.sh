#!/usr/bin/env bash
# Runs a command for at most SECONDS; past them it is stopped (SIGTERM, then SIGKILL 10 s later)
# and named, so that a hang fails in minutes and says where it is.
#   tests/lib/limit.sh SECONDS COMMAND [ARG...]      (the Makefile's $(LIMIT) SECONDS …)
seconds=$1
shift
timeout --kill-after=10 "$seconds" "$@"
status=$?
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
  echo "limit: FAIL \"$*\" still running after $seconds s: stopped" >&2
fi
exit "$status"
