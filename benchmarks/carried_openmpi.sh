# Sourced by the device scripts (benchmarks/results/xeon/*/run.sh, run
# from .carry/dev as `bash .carry/dev/runN.sh`, with D set to that folder):
# the device host has no Open MPI, so Debian's packages travel as .debs in
# $D/../ompi and are unpacked into /tmp/ompi and used relocated
# (OPAL_PREFIX). The CLI links libmpi even when it runs without mpirun.
# Sets R (the unpacked root), OMPILIB (its library folders) and lib TREE
# (the LD_LIBRARY_PATH for the binaries in $D/TREE).
R=/tmp/ompi
mkdir -p "$R"
for f in "$D"/../ompi/*.deb; do dpkg -x "$f" "$R"; done
export OPAL_PREFIX=$R/usr OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPILIB=$R/usr/lib/x86_64-linux-gnu:$R/usr/lib/x86_64-linux-gnu/openmpi/lib
lib() { echo "$D/$1:$D/libs:$OMPILIB"; }
