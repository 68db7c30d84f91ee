# Sourced by the device scripts that run MPI programs: Open MPI from the machine, or from .debs-mpi/ (apt-get
# download libopenmpi-dev libopenmpi3 openmpi-bin openmpi-common and their libraries: the machine has no registry),
# unpacked and relocated with OPAL_PREFIX; root allowed, and more processes than cores.
if ! command -v mpirun >/dev/null && ls .debs-mpi/*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/mpi
  for deb in .debs-mpi/*.deb; do dpkg -x "$deb" /tmp/mpi; done
  export OPAL_PREFIX=/tmp/mpi/usr PATH=/tmp/mpi/usr/bin:$PATH
  export LD_LIBRARY_PATH=/tmp/mpi/usr/lib/x86_64-linux-gnu:/tmp/mpi/usr/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
