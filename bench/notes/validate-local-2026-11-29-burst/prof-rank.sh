#!/bin/bash
# a profile per rank, its own out file
exec "$@" --out /tmp/ab-peer/cur-r${OMPI_COMM_WORLD_RANK:-0}.json
