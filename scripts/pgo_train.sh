#!/usr/bin/env bash
# The training of a profile-guided build (scripts/build.sh --pgo): builds
# small sets of every variant with the instrumented dtb given, so that its
# branch counts cover what the long builds run. The solver is a template per
# variant, so each variant trains its own code; two threads, so that the big
# pairs' team code is trained too. About four minutes on 2 cores (the
# builds measured one by one: Canadian 106 s, American 80 s, International
# 26 s, Brazilian 4 s, Russian 2 s; the instrumented dtb runs about six
# times slower than the optimised one).
#
#     scripts/pgo_train.sh path/to/instrumented/dtb
set -euo pipefail
dtb=${1:?usage: scripts/pgo_train.sh path/to/instrumented/dtb}
[[ -x $dtb ]] || { echo "pgo_train: $dtb is not an executable dtb" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for set in canadian:4 international:4 brazilian:4 american:5 russian:4; do
  variant=${set%%:*} pieces=${set##*:}
  "$dtb" build --variant "$variant" --pieces "$pieces" --dir "$work" --threads 2 --output quiet >/dev/null
done
# The probe's own paths: a full check reads every value back through them.
"$dtb" verify --variant brazilian --dir "$work" --material KKvKM --full >/dev/null
