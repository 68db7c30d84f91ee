# Sourced by the tests that run a program under mpirun (swsearch_mpi.sh, hmmsearch_mpi.sh, align_mpi.sh): a scratch
# folder to work in, removed at exit; what Open MPI needs on a CI machine; fail() to count failures and finish() to
# report them as the exit status.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
# Open MPI refuses root without these (CI runs as root); --oversubscribe lets 3 processes share 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# finish MESSAGE: the failures' count and status 1, or MESSAGE and status 0.
finish() {
  if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
  fi
  echo "$1"
}
