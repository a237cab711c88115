#!/usr/bin/env bash
# The commands hotc's example CI pipelines run (GitHub Actions: github-actions.yml, GitLab CI: gitlab-ci.yml).
# Both call this script, and hotc's own tests run it too, so the examples stay true.
#
#   hotc-ci.sh plan    validate (SARIF), plan (saved plan, JSON, Markdown comment, SARIF, Mermaid + SVG graph)
#   hotc-ci.sh apply   apply exactly the saved plan (refused if the state or the template moved since)
#
# Settings (environment): HOTC_TEMPLATE (required), HOTC_ENV_FILES (space-separated), HOTC_STACK (default: the
# template's stem), HOTC_POLICY (a policy file; optional), HOTC_PRICES (a price table; optional), OUT (output
# directory, default hotc-out), HOTC (the hotc command, default hotc). The backend comes from HOTC_BACKEND or
# hotc.toml, as for every hotc command; set HOTC_STATE_KEY from a CI secret.
#
# Exit status of 'plan': 0 no changes, 2 changes to review, 3 a deny policy rule is violated, 1 an error.
set -uo pipefail
cmd=${1:?usage: hotc-ci.sh plan|apply}
HOTC=${HOTC:-hotc}
OUT=${OUT:-hotc-out}
: "${HOTC_TEMPLATE:?set HOTC_TEMPLATE to the template file}"
mkdir -p "$OUT"
envs=()
for e in ${HOTC_ENV_FILES:-}; do envs+=(-e "$e"); done
stack=()
[ -n "${HOTC_STACK:-}" ] && stack=("$HOTC_STACK")

case "$cmd" in
plan)
  $HOTC validate -t "$HOTC_TEMPLATE" "${envs[@]}" --format sarif > "$OUT/validate.sarif"
  vrc=$?
  if [ $vrc -ne 0 ]; then
    echo "hotc-ci: the template is invalid (see $OUT/validate.sarif)" >&2
    exit 1
  fi
  policy=()
  [ -n "${HOTC_POLICY:-}" ] && policy=(--policy-file "$HOTC_POLICY")
  prices=()
  [ -n "${HOTC_PRICES:-}" ] && prices=(--prices "$HOTC_PRICES")
  $HOTC plan -t "$HOTC_TEMPLATE" "${envs[@]}" "${stack[@]}" "${policy[@]}" "${prices[@]}" \
    --detailed-exitcode -o "$OUT/plan.json" --format markdown > "$OUT/plan.md"
  rc=$?
  case $rc in
    0|2) ;;
    3) echo "hotc-ci: a deny policy rule is violated; the plan was not saved (see $OUT/plan.md)" >&2
       $HOTC plan -t "$HOTC_TEMPLATE" "${envs[@]}" "${stack[@]}" "${policy[@]}" --format sarif > "$OUT/plan.sarif"
       exit 3 ;;
    *) echo "hotc-ci: hotc plan failed (exit $rc)" >&2; exit 1 ;;
  esac
  $HOTC show "$OUT/plan.json" --format json > "$OUT/plan.show.json" || exit 1
  $HOTC plan -t "$HOTC_TEMPLATE" "${envs[@]}" "${stack[@]}" "${policy[@]}" --format sarif > "$OUT/plan.sarif"
  [ $? -le 3 ] || exit 1
  $HOTC graph "$OUT/plan.json" --format mermaid -o "$OUT/plan.mmd" || exit 1
  if command -v dot >/dev/null; then $HOTC graph "$OUT/plan.json" --format svg -o "$OUT/plan.svg" || exit 1; fi
  exit $rc
  ;;
apply)
  [ -f "$OUT/plan.json" ] || { echo "hotc-ci: no saved plan at $OUT/plan.json (run 'hotc-ci.sh plan' first)" >&2; exit 1; }
  $HOTC apply "$OUT/plan.json" --auto-approve
  ;;
*)
  echo "usage: hotc-ci.sh plan|apply" >&2; exit 1 ;;
esac
