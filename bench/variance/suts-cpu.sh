#!/bin/bash
# Every 0.5 s: CPU (ms) each SUT process took since the last sample. Bounded: $1 seconds.
# SUT_PATTERN: the processes to read (pgrep -f); default: the SUTs perflab builds.
end=$(( $(date +%s) + ${1:-120} ))
declare -A last
while [ $(date +%s) -lt $end ]; do
  line="$(date +%H:%M:%S.%N | cut -c1-10)"
  for p in $(pgrep -f "${SUT_PATTERN:-/var/tmp/perflab/sut/|src/PerfLab.Sut/bin/}"); do
    t=$(awk '{print $14+$15}' /proc/$p/stat 2>/dev/null) || continue
    [ -n "${last[$p]}" ] && line="$line $p:$(( (t - ${last[$p]}) * 10 ))"
    last[$p]=$t
  done
  echo "$line"
  sleep 0.5
done
