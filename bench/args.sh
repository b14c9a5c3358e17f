# Sourced first by the scripts in bench/ and slurm/ (slurm/common.sh for the
# batch scripts), before they check or write anything: --help prints the
# script's opening comment, its usage, then each setting it reads from the
# environment with its default (the lines VAR=${VAR:-default}), and exits 0.
#   answer_help SCRIPT "$@"   --help, and nothing else (a script with arguments)
#   script_args SCRIPT "$@"   --help; any other argument refused in one line,
#                             exit 2 (the settings come from the environment)
# The folders a user names (OUT, RING_OUT, RESULTS_ROOT) are where they are,
# not where the script goes: made absolute before the script moves to the
# project. Its own defaults (results/mine, ...) stay the project's.
from_here() {
  local v
  for v in OUT RING_OUT RESULTS_ROOT; do
    [ -n "${!v:-}" ] && [[ ${!v} != /* ]] && printf -v "$v" '%s/%s' "$PWD" "${!v}"
  done
  return 0
}
answer_help() {
  local script=$1
  shift
  case ${1:-} in
    -h | --help)
      # The comment block under the #! line, up to the first line of code or #SBATCH.
      sed -n '2,${/^#SBATCH/q;/^#/!q;s/^# \{0,1\}//p}' "$script"
      local settings
      settings=$(grep -E '^ *(export )?[A-Z][A-Z0-9_]*=\$\{[A-Z][A-Z0-9_]*:-' "$script" | sed 's/^ */  /')
      [ -z "$settings" ] || printf '\nSettings, from the environment, and their defaults:\n%s\n' "$settings"
      exit 0
      ;;
  esac
  from_here
}
script_args() {
  local script=$1
  answer_help "$@"
  shift
  [ $# = 0 ] && return 0
  echo "error: $(basename "$script") takes no arguments, not '$1': its settings come from the environment ($(basename "$script") --help)" >&2
  exit 2
}
