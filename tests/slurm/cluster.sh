#!/usr/bin/env bash
# Start or stop a one-node SLURM cluster on this machine (as root on Debian): tests/slurm/cluster.sh start|stop|status
# `start` installs Debian's slurm-wlm and munge when they are missing, writes slurm.conf from slurm.conf.in with
# this machine's host name, CPUs and memory (minus 1 GiB for the system), starts munged, slurmctld and slurmd, and
# waits until the node is idle. State, logs and the configuration live under $SLURM_TEST_DIR (default
# /tmp/paperlib-slurm); /etc/slurm/slurm.conf links to its slurm.conf while it runs (refused if that path holds
# another cluster's configuration), so that sbatch, squeue and srun inside a job find it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${SLURM_TEST_DIR:-/tmp/paperlib-slurm}"
conf="$dir/slurm.conf"
export SLURM_CONF="$conf"

daemons() {  # the pids of live slurmctld / slurmd processes (not zombies awaiting their parent)
  for pid in $(pgrep -x slurmctld || true) $(pgrep -x slurmd || true); do  # (pgrep takes names of <= 15 characters)
    [ "$(ps -o stat= -p "$pid" | cut -c1)" = Z ] || printf '%s ' "$pid"
  done
}

start() {
  if [ "$(id -u)" != 0 ]; then echo "cluster.sh: run as root (it installs and starts daemons)" >&2; exit 2; fi
  if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null; }
  fi
  if [ -n "$(daemons)" ]; then
    echo "cluster.sh: a slurmctld or slurmd already runs here (pids $(daemons)); stop it" \
         "first (tests/slurm/cluster.sh stop, with the SLURM_TEST_DIR it was started with)" >&2
    exit 2
  fi
  mkdir -p "$dir/ctld" "$dir/d"
  host="$(hostname -s)"
  cpus="$(nproc)"
  mem="$(awk '/MemTotal/ {print int($2 / 1024) - 1024}' /proc/meminfo)"
  sed -e "s|@HOST@|$host|g" -e "s|@STATE@|$dir|g" -e "s|@CPUS@|$cpus|g" -e "s|@MEM@|$mem|g" \
      -e "s|@CTLD_PORT@|${SLURM_TEST_CTLD_PORT:-6917}|g" -e "s|@D_PORT@|${SLURM_TEST_D_PORT:-6918}|g" \
      "$here/slurm.conf.in" > "$conf"
  # the daemons read $conf; srun inside a job (Snakemake's jobstep executor) reads the default path, which a test
  # cluster may take only if nothing else has it
  mkdir -p /etc/slurm
  if [ -e /etc/slurm/slurm.conf ] && [ "$(readlink /etc/slurm/slurm.conf)" != "$conf" ]; then
    echo "cluster.sh: /etc/slurm/slurm.conf exists and is not this test cluster's; not touching a real cluster" >&2
    exit 2
  fi
  ln -sfn "$conf" /etc/slurm/slurm.conf
  if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge && dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
  fi
  chown -R munge:munge /etc/munge 2>/dev/null || true
  chmod 400 /etc/munge/munge.key
  mkdir -p /run/munge /var/log/munge /var/lib/munge && chown munge:munge /run/munge /var/log/munge /var/lib/munge
  pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
  slurmctld -f "$conf" -c    # -c: a clean start (no saved state from an earlier test cluster)
  slurmd -f "$conf"
  for _ in $(seq 60); do
    state="$(sinfo -h -N -o %T 2>/dev/null || true)"
    if [ "$state" = "idle" ]; then echo "slurm: one node ($host, $cpus CPUs, $mem MB) idle"; return 0; fi
    sleep 1
  done
  echo "cluster.sh: the node did not come up (state: ${state:-none}); logs in $dir" >&2
  tail -20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
  exit 1
}

stop() {
  for daemon in slurmd slurmctld; do
    [ -f "$dir/$daemon.pid" ] && kill "$(cat "$dir/$daemon.pid")" 2>/dev/null || true
  done
  for _ in $(seq 20); do  # gone before the next start binds the same ports
    [ -z "$(daemons)" ] && break
    sleep 0.5
  done
  [ "$(readlink /etc/slurm/slurm.conf 2>/dev/null)" = "$conf" ] && rm -f /etc/slurm/slurm.conf
  echo "slurm: stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) sinfo ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
