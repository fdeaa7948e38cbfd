#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# mpirun's wrapper for one rank of a two-rank job over rxd, each rank an
# rxd host of its own over memif (until rxd runs as a host service):
# rank 0 is the memif server on 10.0.0.1, rank 1 the client on 10.0.0.2,
# each with the lcores in RXD_MPI_LCORES_<rank> (default: 0 and 1, one
# lcore each, the engine inline).  Then the program runs.
# Usage: rank-env.sh DIR PROGRAM ARGS...   (DIR holds the memif socket)
set -u
dir=$1
shift
rank=${OMPI_COMM_WORLD_RANK:?not started by mpirun}
role=server
[ "$rank" = 0 ] || role=client
lcores_var=RXD_MPI_LCORES_$rank
export RXD_EAL_ARGS="-l ${!lcores_var:-$rank} --no-pci --no-huge -m 512 \
--file-prefix rxdmpi$rank$PPID --vdev=net_memif0,role=$role,id=0,\
socket=$dir/m.sock,socket-abstract=no --log-level=lib.eal:error \
--log-level=pmd.net.memif:error"
export RXD_ADDR=10.0.0.$((rank + 1))/24
exec "$@"
