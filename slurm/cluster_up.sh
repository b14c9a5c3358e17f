#!/bin/bash
# Starts a real Slurm cluster on this machine, for trying the batch scripts
# (and for the tests). Debian 12's Slurm packages, no systemd, no cgroups; as
# root. Safe to run again: what is up stays up.
#
#   slurm/cluster_up.sh                       one node, NCPUS (8) CPUs advertised
#   NODES=4 NCPUS=2 RATE=1gbit slurm/cluster_up.sh
#                                             four emulated nodes cmlnode0..3, each a
#                                             network namespace on bridge cmlbr0
#                                             (10.79.0.0/24), every link capped at RATE
#   NODES=8 NCPUS=1 RATE=100mbit TOPOLOGY=ring slurm/cluster_up.sh
#                                             eight nodes in a ring: each namespace linked
#                                             only to its two neighbours, node i at
#                                             10.77.0.(i+1), routed the shorter way round
#                                             through the nodes between (half way: to
#                                             higher numbers), every ring link capped at
#                                             RATE; MPI's data over the ring, Slurm and
#                                             MPI's start-up over the bridge, unshaped
# then:  source /tmp/commlab-cluster/env.sh ; sbatch ... ; slurm/cluster_down.sh
source "$(dirname "$0")/../bench/args.sh" && script_args "$0" "$@"
set -euo pipefail
PREFIX=${PREFIX:-/tmp/commlab-cluster}
NODES=${NODES:-1}
NCPUS=${NCPUS:-8}
RATE=${RATE:-}
TOPOLOGY=${TOPOLOGY:-switch}
# Every emulated node's TCP congestion control. Reno, not the host's default
# (BBR on the machines this was built on): on the ring, BBR took 0.30 s for
# the ring all-reduce at P = 8 and 1 MiB where the links allow 0.15 s, and
# Reno 0.16 s (docs/time-model.md, "TCP's congestion control").
CONGESTION=${CONGESTION:-reno}
SNDBUF=${SNDBUF:-262144}
RING_SUBNET=${RING_SUBNET:-10.77.0}
# The links' token bucket. A small one makes every message of 16 KiB or
# more pay the rate, one way: ping-pong GB/s at 16 KiB / 1 MiB at 1gbit,
# burst 256kb 0.55 (at 32 KiB) / 0.118, 8kb 0.166 / 0.118, 4kb 0.118 / 0.105,
# 2kb 0.056 / 0.051. But below 256kb, traffic both ways at once (a ring's
# step) falls to a third: the 4 MiB ring at P = 4 ran at 0.101 GB/s per
# link with 256kb, 0.039 with 64kb, 0.046 with 8kb and offloads off. Until a
# shaping does both, the default stays 256kb. (Those figures are a bare
# token bucket's; a switch's ports and a ring's links are now HTB classes
# that send small packets first, port_shape.sh and ring_shape.sh, with BURST
# as their burst: there 16kb and 256kb gave the same times, P = 4 at 1 and
# 4 MiB, one run by hand.)
BURST=${BURST:-256kb}
# A second cluster beside the first (the tests run one) needs its own of these:
TAG=${TAG:-cml}          # names: ${TAG}br0, ${TAG}node0.., ${TAG}v0..
SUBNET=${SUBNET:-10.79.0}
PORT=${PORT:-6817}       # slurmctld's; slurmd's is the next one
HERE=$(cd "$(dirname "$0")" && pwd)
export SLURM_CONF=$PREFIX/etc/slurm.conf
die() { echo "error: $*" >&2; exit 2; }
[[ $NODES =~ ^[1-9][0-9]?$ ]] || die "NODES must be a number of nodes from 1 to 99, not '$NODES'"
[[ $NCPUS =~ ^[1-9][0-9]*$ ]] || die "NCPUS must be a number of CPUs, not '$NCPUS'"
[ -z "$RATE" ] || [[ $RATE =~ ^[0-9]+(bit|kbit|mbit|gbit)$ ]] || die "RATE must look like 100mbit or 1gbit, not '$RATE'"
[[ $BURST =~ ^[0-9]+(b|kb|k|mb|m)$ ]] || die "BURST must look like 8kb, not '$BURST'"
[[ $TAG =~ ^[a-z]{1,4}$ ]] || die "TAG must be 1 to 4 lower-case letters, not '$TAG'"
[[ $SUBNET =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "SUBNET must be the first three numbers of a /24, like 10.79.0"
[[ $PORT =~ ^[0-9]+$ ]] || die "PORT must be a port number, not '$PORT'"
allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control 2>/dev/null || echo reno)
[[ " $allowed " == *" $CONGESTION "* ]] || die "CONGESTION must be one of this kernel's allowed ($allowed), not '$CONGESTION'"
# 16384 at least: TCP's default buffer, which a smaller maximum does not shrink.
[[ $SNDBUF =~ ^[1-9][0-9]{4,8}$ ]] && [ "$SNDBUF" -ge 16384 ] \
  || die "SNDBUF must be a TCP connection's send buffer in bytes, 16384 or more, not '$SNDBUF'"
[[ $TOPOLOGY =~ ^(switch|ring)$ ]] || die "TOPOLOGY must be switch or ring, not '$TOPOLOGY'"
[ "$TOPOLOGY" = switch ] || [ "$NODES" -ge 3 ] || die "TOPOLOGY=ring needs NODES of 3 or more, not $NODES"
[[ $RING_SUBNET =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "RING_SUBNET must be the first three numbers of a /24, like 10.77.0"
[ "$(id -u)" = 0 ] || die "the local cluster needs root (daemons, namespaces, packages)"
if [ -s "$PREFIX/nodes" ] && [ "$(cat "$PREFIX/nodes")" != "$NODES $TAG $TOPOLOGY" ]; then
  die "another cluster ($(cat "$PREFIX/nodes")) is up in $PREFIX; stop it first (slurm/cluster_down.sh)"
fi

# 1. Packages: without recommends (6 packages), and without letting apt start
#    the system's own daemons.
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null || ! command -v srun >/dev/null; then
  made_policy=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && made_policy=1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    slurmctld slurmd slurm-client munge >/dev/null
  [ -z "$made_policy" ] || rm -f /usr/sbin/policy-rc.d
fi

# 2. The emulated network: a namespace per node on one bridge, each node's
#    port capped at RATE each way, small packets first (port_shape.sh; this kernel has
#    no netem: no added latency).
if [ "$NODES" -gt 1 ]; then
  ip link add ${TAG}br0 type bridge 2>/dev/null || true
  ip addr replace $SUBNET.254/24 dev ${TAG}br0
  ip link set ${TAG}br0 up
  for i in $(seq 0 $((NODES - 1))); do
    ns=${TAG}node$i
    ip netns add $ns 2>/dev/null || true
    if ! ip link show ${TAG}v$i >/dev/null 2>&1; then
      ip link add ${TAG}v$i type veth peer name ${TAG}p$i
      ip link set ${TAG}p$i netns $ns
      ip link set ${TAG}v$i master ${TAG}br0 up
    fi
    ip -n $ns link set lo up
    ip netns exec $ns sysctl -qw "net.ipv4.tcp_congestion_control=$CONGESTION"
    # A send completes once TCP holds its bytes, and by default TCP holds up
    # to 4 MiB a connection: a rank's sends of the next step then start
    # while the last step's are still on its port, and share it (the
    # binomial broadcast's root at P = 4 sent its two messages of 4 MiB at
    # once, the first arrived 30 ms late, and so did the whole call).
    # SNDBUF bytes a connection, about 2 ms of a 1 Gbit/s link, make a send
    # complete near its delivery, as a network's rendezvous does.
    ip netns exec $ns sysctl -qw "net.ipv4.tcp_wmem=4096 16384 $SNDBUF"
    ip -n $ns addr replace $SUBNET.$((i + 1))/24 dev ${TAG}p$i
    ip -n $ns link set ${TAG}p$i up
    tc -n $ns qdisc del dev ${TAG}p$i root 2>/dev/null || true
    tc qdisc del dev ${TAG}v$i root 2>/dev/null || true
    # A switch's port, RATE each way (what the node sends, and on the
    # bridge's side what the switch sends it), acks and handshakes before
    # data (port_shape.sh). With the node's side alone, two ranks sending to
    # one node at once were not slowed: the double binary tree at P = 4 ran
    # 18 to 22% faster than the port model, which charges each way.
    if [ -n "$RATE" ] && [ "$TOPOLOGY" = switch ]; then
      bash "$HERE/port_shape.sh" $ns ${TAG}p$i "$RATE" "$BURST"
      bash "$HERE/port_shape.sh" host ${TAG}v$i "$RATE" "$BURST"
    fi
  done
  [ "$TOPOLOGY" = switch ] || bash "$HERE/ring_links.sh" "$NODES" "$TAG" "$RING_SUBNET" "$RATE" "$BURST"
  names=$(seq -f "${TAG}node%g" 0 $((NODES - 1)))
  controller="$(hostname -s)($SUBNET.254)"
else
  names=$(hostname -s)
  controller=$(hostname -s)
fi

# 3. Configuration.
mkdir -p "$PREFIX"/{etc,log,run,spool/ctld,munge}
chmod 711 "$PREFIX/munge"
echo "$NODES $TAG $TOPOLOGY" >"$PREFIX/nodes"
[ -s "$PREFIX/munge/munge.key" ] || mungekey -c -k "$PREFIX/munge/munge.key"
{
  cat <<CONF
ClusterName=commlab
SlurmctldHost=$controller
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$PREFIX/munge/munge.socket
StateSaveLocation=$PREFIX/spool/ctld
SlurmdSpoolDir=$PREFIX/spool/d-%n
TmpFS=$PREFIX/tmp/%n
SlurmctldPidFile=$PREFIX/run/slurmctld.pid
SlurmdPidFile=$PREFIX/run/slurmd-%n.pid
SlurmctldLogFile=$PREFIX/log/slurmctld.log
SlurmdLogFile=$PREFIX/log/slurmd-%n.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
MpiDefault=pmix
ReturnToService=2
MinJobAge=4
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
CONF
  i=0
  for n in $names; do
    addr=127.0.0.1
    [ "$NODES" -gt 1 ] && addr=$SUBNET.$((i + 1))
    echo "NodeName=$n NodeAddr=$addr CPUs=$NCPUS Sockets=1 CoresPerSocket=$NCPUS ThreadsPerCore=1 RealMemory=2000 State=UNKNOWN"
    mkdir -p "$PREFIX/spool/d-$n" "$PREFIX/tmp/$n"
    i=$((i + 1))
  done
  echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
} >"$SLURM_CONF.new"
mv "$SLURM_CONF.new" "$SLURM_CONF"
{
  echo "export SLURM_CONF=$SLURM_CONF"
  echo "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
  # The emulated nodes share this machine's few cores, which Open MPI cannot
  # know: a rank that spins while it waits takes the core its peer needs (a
  # 2 KiB all-reduce at P = 3 took 16 ms spinning, 0.1 ms yielding).
  echo "export OMPI_MCA_mpi_yield_when_idle=1"
  # What the links were given, for machine.md beside what they measured.
  shaped="htb each way, small packets first, burst $BURST; TCP send buffer $SNDBUF B; emulated"
  [ "$TOPOLOGY" = ring ] && shaped="htb, a queue per pair of nodes, burst $BURST; TCP send buffer $SNDBUF B; emulated; each ring link, each way"
  [ -z "$RATE" ] || echo "export COMMLAB_LINK_RATE='$RATE ($shaped)'"
  # Emulated nodes: MPI must use the bridge, not loopback or the host's own interfaces.
  # On a ring, the data over the ring's addresses and start-up over the bridge.
  data=$SUBNET
  [ "$TOPOLOGY" = ring ] && data=$RING_SUBNET
  [ "$NODES" -gt 1 ] && echo "export OMPI_MCA_btl_tcp_if_include=$data.0/24 OMPI_MCA_oob_tcp_if_include=$SUBNET.0/24"
  # The network for the rows' per-link columns, the nodes in its order, and
  # the links whose own counters the rows read (harness/link_counters.hpp).
  if [ "$TOPOLOGY" = ring ]; then
    echo "export COMMLAB_TOPOLOGY=ring:$NODES COMMLAB_NODE_ORDER=$PREFIX/node_order COMMLAB_LINK_DEVICES='${TAG}r ${TAG}l'"
    echo "$names" >"$PREFIX/node_order"
  else
    # A shell that sourced a ring's env.sh would count a switch's rows on
    # the ring's links, and read devices no switch node has.
    echo "unset COMMLAB_TOPOLOGY COMMLAB_NODE_ORDER COMMLAB_LINK_DEVICES"
  fi
  # Open MPI's TCP transport, by default, writes the rest of a large message
  # as one "put" (btl_tcp_rdma_pipeline_frag_size is 2 GiB), and nothing else
  # leaves on that connection until it is written: a rendezvous reply waits
  # behind megabytes the other way, and the two directions of an exchange take
  # turns (docs/time-model.md, "the transport: both ways at once"). Two
  # connections a pair (btl_tcp_links=2) cured that on the switch, but Open
  # MPI's code for several connections a pair loses a message now and then
  # (a 16 MiB sweep at P = 4 waited for ever, every socket empty; a 16 MiB
  # exchange on the ring too; open-mpi/ompi#4963). So on both the switch and
  # the ring the transport sends 128 KiB fragments (btl_tcp_max_send_size),
  # both directions interleaving, over one connection. A shell that sourced
  # an older env.sh gets them too.
  if [ "$NODES" -gt 1 ]; then
    echo "export OMPI_MCA_btl_tcp_flags=send,inplace,need-ack,need-csum OMPI_MCA_btl_tcp_links=1"
  fi
  true
} >"$PREFIX/env.sh"

# 4. Daemons, detached, each with its PID file under $PREFIX/run: the only
#    processes cluster_down.sh will stop.
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
if ! alive "$PREFIX/run/munged.pid"; then
  setsid munged -F --socket="$PREFIX/munge/munge.socket" --key-file="$PREFIX/munge/munge.key" \
    --log-file="$PREFIX/log/munged.log" --pid-file="$PREFIX/run/munged.pid" \
    --seed-file="$PREFIX/munge/munged.seed" </dev/null >"$PREFIX/log/munged.out" 2>&1 &
  for _ in $(seq 50); do [ -S "$PREFIX/munge/munge.socket" ] && break; sleep 0.1; done
fi
if ! alive "$PREFIX/run/slurmctld.pid"; then
  rm -f "$PREFIX/run/slurmctld.pid"
  setsid slurmctld -D -c </dev/null >"$PREFIX/log/slurmctld.out" 2>&1 &
fi
for n in $names; do
  alive "$PREFIX/run/slurmd-$n.pid" && continue
  rm -f "$PREFIX/run/slurmd-$n.pid"
  if [ "$NODES" -gt 1 ]; then  # nsenter, not 'ip netns exec', which remounts /sys and hides cgroupfs
    setsid nsenter --net=/run/netns/$n unshare --uts /bin/sh -c "hostname $n; exec slurmd -D -N $n" \
      </dev/null >"$PREFIX/log/slurmd-$n.out" 2>&1 &
  else
    setsid slurmd -D -N "$n" </dev/null >"$PREFIX/log/slurmd-$n.out" 2>&1 &
  fi
done

# 5. Ready when every node takes jobs.
ready() { [ -n "$1" ] && ! grep -qvE '^(idle|mixed|allocated)' <<<"$1"; }
state=
for _ in $(seq 60); do
  state=$(sinfo -h -N -o %T 2>/dev/null || true)
  ready "$state" && break
  grep -qE 'down|drain' <<<"$state" && scontrol update nodename=ALL state=resume 2>/dev/null || true
  sleep 0.5
done
if ! ready "$state"; then
  echo "error: Slurm did not come up (node states: ${state:-none}); logs in $PREFIX/log" >&2
  tail -n 5 "$PREFIX"/log/*.log >&2
  exit 1
fi
sinfo
echo "cluster up: $NODES node(s)${RATE:+, links at $RATE}. Now: source $PREFIX/env.sh"
