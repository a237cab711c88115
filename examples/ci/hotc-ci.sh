#!/usr/bin/env bash
# The commands hotc's example CI pipelines run (GitHub Actions: github-actions.yml, GitLab CI: gitlab-ci.yml).
# Both call this script, and hotc's own tests run it too, so the examples stay true.
#
#   hotc-ci.sh plan    validate (SARIF), plan (saved plan, JSON, Markdown comment, SARIF, Mermaid + SVG graph);
#                      with HOTC_PR: store the plan as that pull request's reviewed plan, beside the stack's
#                      state (hotc plan-store), unless another pull request's plan holds the stack
#   hotc-ci.sh apply   apply exactly the reviewed plan (with HOTC_PR: the one that pull request stored; without:
#                      OUT/plan.json), refused if the stack changed since; writes OUT/apply.md (the result comment)
#   hotc-ci.sh drop    drop the stored plan of HOTC_PR (the pull request was closed unmerged): releases the stack
#
# Settings (environment): HOTC_TEMPLATE (required), HOTC_ENV_FILES (space-separated), HOTC_STACK (default: the
# template's stem), HOTC_POLICY (a policy file; optional), HOTC_PRICES (a price table; optional), HOTC_PR (the
# pull or merge request's number), OUT (output directory, default hotc-out), HOTC (the hotc command, default
# hotc), HOTC_PYTHON (the Python that writes apply.md, default python3). The backend comes from HOTC_BACKEND or
# hotc.toml, as for every hotc command; set HOTC_STATE_KEY from a CI secret.
#
# Exit status of 'plan': 0 no changes, 2 changes to review, 3 a deny policy rule is violated, 4 the stack is
# held by another pull request's pending plan (this one was planned, not stored), 1 an error.
# Exit status of 'apply': 0 applied, 1 failed or refused (a stale plan: plan the pull request again).
set -uo pipefail
cmd=${1:?usage: hotc-ci.sh plan|apply|drop}
HOTC=${HOTC:-hotc}
PY=${HOTC_PYTHON:-python3}
OUT=${OUT:-hotc-out}
PR=${HOTC_PR:-}
here=$(cd "$(dirname "$0")" && pwd)
: "${HOTC_TEMPLATE:?set HOTC_TEMPLATE to the template file}"
mkdir -p "$OUT"
envs=()
for e in ${HOTC_ENV_FILES:-}; do envs+=(-e "$e"); done
stack=()
[ -n "${HOTC_STACK:-}" ] && stack=("$HOTC_STACK")
name=${HOTC_STACK:-$(basename "$HOTC_TEMPLATE")}
[ -n "${HOTC_STACK:-}" ] || name=${name%.*}
case "$PR" in ''|*[!0-9]*) [ -z "$PR" ] || { echo "hotc-ci: HOTC_PR=$PR is not a number" >&2; exit 1; } ;; esac

# The pull request's earlier plan is no longer what it shows: drop it (no-op without HOTC_PR or a stored plan).
forget_own() { [ -z "$PR" ] || $HOTC plan-store drop "$name" --pr "$PR" 2>/dev/null || true; }

# Put a notice right under the comment's marker line, so it shows first.
notice() {
  local file=$1 text=$2
  { head -n 1 "$file"; printf '\n%s\n' "$text"; tail -n +2 "$file"; } > "$file.tmp" && mv "$file.tmp" "$file"
}

case "$cmd" in
plan)
  $HOTC validate -t "$HOTC_TEMPLATE" "${envs[@]}" --format sarif > "$OUT/validate.sarif"
  vrc=$?
  if [ $vrc -ne 0 ]; then
    echo "hotc-ci: the template is invalid (see $OUT/validate.sarif)" >&2
    forget_own; exit 1
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
       forget_own; exit 3 ;;
    *) echo "hotc-ci: hotc plan failed (exit $rc)" >&2; forget_own; exit 1 ;;
  esac
  $HOTC show "$OUT/plan.json" --format json > "$OUT/plan.show.json" || { forget_own; exit 1; }
  $HOTC plan -t "$HOTC_TEMPLATE" "${envs[@]}" "${stack[@]}" "${policy[@]}" --format sarif > "$OUT/plan.sarif"
  [ $? -le 3 ] || { forget_own; exit 1; }
  $HOTC graph "$OUT/plan.json" --format mermaid -o "$OUT/plan.mmd" || { forget_own; exit 1; }
  if command -v dot >/dev/null; then $HOTC graph "$OUT/plan.json" --format svg -o "$OUT/plan.svg" || { forget_own; exit 1; }; fi
  if [ -n "$PR" ]; then
    pending=$($HOTC plan-store list "$name" -q) || { echo "hotc-ci: cannot read the stored plans of $name" >&2; exit 1; }
    holders=()
    for p in $pending; do [ "$p" = "$PR" ] || holders+=("#$p"); done
    if [ ${#holders[@]} -gt 0 ]; then
      forget_own
      held=$(IFS=,; echo "${holders[*]}" | sed 's/,/, /g')
      notice "$OUT/plan.md" "> [!WARNING]
> **Held:** stack \`$name\` is held by the pending reviewed plan of PR $held. This plan was made but not stored:
> this pull request cannot be applied until PR $held is merged and applied, or closed. Then re-run this job."
      echo "hotc-ci: stack $name is held by the pending plan of PR $held; this plan was not stored" >&2
      exit 4
    fi
    if [ $rc -eq 2 ]; then
      $HOTC plan-store put "$name" "$OUT/plan.json" --pr "$PR" || exit 1
      notice "$OUT/plan.md" "Stored as the reviewed plan of PR #$PR: merging applies exactly this plan, and holds \`$name\` for other pull requests until then."
    else
      forget_own  # no changes: nothing to apply, nothing to hold
    fi
  fi
  exit $rc
  ;;
apply)
  rm -f "$OUT/apply.md" "$OUT/apply.json" "$OUT/outputs.json"
  if [ -n "$PR" ]; then
    rm -f "$OUT/plan.json"
    if ! $HOTC plan-store get "$name" "$OUT/plan.json" --pr "$PR"; then
      # No reviewed plan: fine only if there is nothing to apply (the pull request changed nothing here).
      $HOTC plan -t "$HOTC_TEMPLATE" "${envs[@]}" "${stack[@]}" --detailed-exitcode > /dev/null
      prc=$?
      if [ $prc -eq 0 ]; then
        echo "hotc-ci: PR #$PR stored no plan and the stack $name has no changes: nothing to apply" >&2
        exit 0
      fi
      echo "hotc-ci: PR #$PR stored no reviewed plan for $name, and the stack has changes (or the plan failed):" \
        "nothing was applied. Plan them in a pull request (re-run its plan job), review, merge." >&2
      exit 1
    fi
  fi
  [ -f "$OUT/plan.json" ] || { echo "hotc-ci: no saved plan at $OUT/plan.json (run 'hotc-ci.sh plan' first)" >&2; exit 1; }
  $HOTC show "$OUT/plan.json" --format json > "$OUT/plan.show.json" || exit 1
  start=$SECONDS
  $HOTC apply "$OUT/plan.json" --auto-approve --format json > "$OUT/apply.json" 2> "$OUT/apply.log"
  arc=$?
  took=$((SECONDS - start))
  cat "$OUT/apply.log" >&2
  if [ $arc -ne 0 ] && grep -q "saved plan is stale" "$OUT/apply.log"; then
    again="re-run the plan job of PR #$PR (hotc-ci.sh plan with HOTC_PR=$PR), review the new plan, then apply it"
    [ -n "$PR" ] || again="run 'hotc-ci.sh plan' again, review the new plan, then apply it"
    echo "hotc-ci: the reviewed plan is stale (the stack changed since it was planned) and was not applied." \
      "Plan again: $again." >&2
    $PY "$here/apply-comment.py" "$OUT" "$name" "$PR" "$arc" "$took" || exit 1
    notice "$OUT/apply.md" "> [!CAUTION]
> **Not applied: the reviewed plan is stale** (the stack changed since it was planned). Plan again: $again."
    exit 1
  fi
  $HOTC output "$name" --format json > "$OUT/outputs.json" 2>/dev/null || rm -f "$OUT/outputs.json"
  $PY "$here/apply-comment.py" "$OUT" "$name" "$PR" "$arc" "$took" || exit 1
  if [ $arc -eq 0 ] && [ -n "$PR" ]; then
    $HOTC plan-store drop "$name" --pr "$PR" || exit 1
  elif [ $arc -ne 0 ] && [ -n "$PR" ]; then
    echo "hotc-ci: the apply failed (see $OUT/apply.md); the plan of PR #$PR stays stored, holding $name: fix the" \
      "cause, then plan again (re-run the plan job of PR #$PR) and apply, or release it with 'hotc-ci.sh drop'" >&2
  fi
  exit $arc
  ;;
drop)
  [ -n "$PR" ] || { echo "hotc-ci: set HOTC_PR to the pull request whose plan to drop" >&2; exit 1; }
  $HOTC plan-store drop "$name" --pr "$PR"
  ;;
*)
  echo "usage: hotc-ci.sh plan|apply|drop" >&2; exit 1 ;;
esac
