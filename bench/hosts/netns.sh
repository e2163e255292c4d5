# Hosts made of network namespaces for the hosts benchmarks, as the tests' NetnsLab builds them: a controller namespace
# holding a bridge, one namespace per host joined to it by a veth pair and running its own sshd (throwaway keys), an
# ssh config naming each host. Addresses (10.x.y.0/24) exist inside these namespaces only. lab_down (set as the EXIT
# trap by lab_up) kills every process left in them, deletes them and the lab's folder. Source it; do not run it.
# Needs root, iproute2, openssh-server and openssh-client.

LAB_PREFIX="plb$(( $$ % 10000 ))"
LAB_SUBNET="10.$(( RANDOM % 100 + 150 )).$(( RANDOM % 200 + 1 ))"
LAB_DIR=""
LAB_CTRL="${LAB_PREFIX}c"
LAB_NAMESPACES=()
declare -A LAB_NS LAB_ADDR

lab_up() { # lab_up NAME...: the controller and one host per name
  LAB_DIR="$(mktemp -d /tmp/perflab-bench-netns-XXXXXX)"
  chmod 755 "$LAB_DIR"
  trap lab_down EXIT
  mkdir -p /run/sshd
  ssh-keygen -q -t ed25519 -N "" -f "$LAB_DIR/user_key"
  ssh-keygen -q -t ed25519 -N "" -f "$LAB_DIR/host_key"
  cp "$LAB_DIR/user_key.pub" "$LAB_DIR/authorized_keys"
  ip netns add "$LAB_CTRL"; LAB_NAMESPACES+=("$LAB_CTRL")
  ip -n "$LAB_CTRL" link set lo up
  ip -n "$LAB_CTRL" link add br0 type bridge
  ip -n "$LAB_CTRL" addr add "$LAB_SUBNET.1/24" dev br0
  ip -n "$LAB_CTRL" link set br0 up
  : >"$LAB_DIR/ssh_config"; : >"$LAB_DIR/known_hosts"
  local i=0 name ns addr
  for name in "$@"; do
    ns="${LAB_PREFIX}h$i"; addr="$LAB_SUBNET.$(( i + 2 ))"
    ip netns add "$ns"; LAB_NAMESPACES+=("$ns")
    ip link add "${LAB_PREFIX}v$i" type veth peer name "${LAB_PREFIX}v${i}b"
    ip link set "${LAB_PREFIX}v$i" netns "$ns"
    ip link set "${LAB_PREFIX}v${i}b" netns "$LAB_CTRL"
    ip -n "$LAB_CTRL" link set "${LAB_PREFIX}v${i}b" master br0 up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$addr/24" dev "${LAB_PREFIX}v$i"
    ip -n "$ns" link set "${LAB_PREFIX}v$i" up
    printf '%s\n' "ListenAddress $addr" "Port 22" "HostKey $LAB_DIR/host_key" "AuthorizedKeysFile $LAB_DIR/authorized_keys" \
      "PidFile $LAB_DIR/sshd_$ns.pid" "StrictModes no" "UsePAM no" "PasswordAuthentication no" \
      "KbdInteractiveAuthentication no" "PermitRootLogin prohibit-password" "LogLevel ERROR" \
      "SetEnv PERFLAB_HOST_CACHE=$LAB_DIR/cache-$ns" >"$LAB_DIR/sshd_$ns.conf"
    ip netns exec "$ns" /usr/sbin/sshd -f "$LAB_DIR/sshd_$ns.conf"
    printf 'Host %s\n  HostName %s\n  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n' "$name" "$addr" "$LAB_DIR/user_key" \
      >>"$LAB_DIR/ssh_config"
    printf '  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n\n' "$LAB_DIR/known_hosts" >>"$LAB_DIR/ssh_config"
    echo "$addr $(cat "$LAB_DIR/host_key.pub")" >>"$LAB_DIR/known_hosts"
    LAB_NS[$name]="$ns"; LAB_ADDR[$name]="$addr"
    for _ in $(seq 1 100); do # sshd -D is not used: wait for its listening socket, bounded
      ip netns exec "$ns" ss -Htln | grep -q "$addr:22" && break
      sleep 0.05
    done
    i=$(( i + 1 ))
  done
}

lab_down() {
  local ns pid
  for ns in "${LAB_NAMESPACES[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
  done
  for ns in "${LAB_NAMESPACES[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  [[ -n "$LAB_DIR" ]] && rm -rf "$LAB_DIR"
  LAB_NAMESPACES=()
}

in_ns() { local ns="$1"; shift; ip netns exec "$ns" "$@"; } # in_ns NAMESPACE COMMAND...

# cpu_seconds PID: the process's user + system CPU so far, from /proc (clock ticks / 100 on Linux).
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f\n", ($14 + $15) / hz }' "/proc/$1/stat"; }
