#!/bin/bash
# A CPU hog on core 1 half of the time: 30 s busy, 30 s idle, for $1 seconds at most (bounded).
end=$(( $(date +%s) + ${1:-1300} ))
while [ $(date +%s) -lt $end ]; do
  timeout 30 taskset -c 1 sh -c 'while :; do :; done'
  sleep 30
done
