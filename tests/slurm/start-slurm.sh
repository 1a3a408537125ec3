#!/usr/bin/env bash
# Starts a one-node Slurm on localhost (munged, slurmctld, slurmd) for the Slurm backend's test.
# Debian 12, as root, with slurm-wlm and munge installed (scripts/setup.sh installs them); it
# installs nothing itself. Without accounting (sacct needs slurmdbd): the engine tracks jobs with
# squeue and `scontrol show job`. Idempotent: a Slurm that already answers is left alone.
# Usage: tests/slurm/start-slurm.sh [PARTITION]   (default partition: kbstudio)
set -euo pipefail

partition="${1:-kbstudio}"
conf=/etc/slurm/slurm.conf

die() { echo "start-slurm: $*" >&2; exit 1; }

if sinfo -h -p "$partition" -o '%a %t' 2>/dev/null | grep -q '^up \(idle\|mix\|alloc\)'; then
  echo "start-slurm: partition $partition already up"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || die "needs root to configure and start the daemons (or a running Slurm with partition $partition)"
for bin in munged slurmctld slurmd sinfo sbatch squeue scontrol; do
  command -v "$bin" >/dev/null || [ -x "/usr/sbin/$bin" ] || die "$bin not found: install slurm-wlm and munge (apt-get install slurm-wlm munge)"
done

# munge: a key, its folders owned by the munge user, the daemon running as that user.
install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
install -d -o munge -g munge -m 0755 /run/munge
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
fi
if ! munge -n >/dev/null 2>&1; then
  runuser -u munge -- /usr/sbin/munged || die "munged did not start"
  for _ in $(seq 50); do munge -n >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n >/dev/null 2>&1 || die "munged does not answer"
fi

cpus=$(nproc)
[ "$cpus" -gt 2 ] && cpus=2
install -d -m 0755 /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > "$conf" <<CONF
# One-node Slurm for KernelBench Studio's Slurm backend test (written by tests/slurm/start-slurm.sh).
ClusterName=kbstudio
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=300
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=$partition Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF

pgrep -x slurmctld >/dev/null || /usr/sbin/slurmctld || die "slurmctld did not start; see /var/log/slurm/slurmctld.log"
pgrep -x slurmd >/dev/null || /usr/sbin/slurmd -N localhost || die "slurmd did not start; see /var/log/slurm/slurmd.log"
for _ in $(seq 100); do
  if sinfo -h -p "$partition" -o '%a %t' 2>/dev/null | grep -q '^up \(idle\|mix\|alloc\)'; then
    echo "start-slurm: partition $partition up on localhost ($cpus CPUs)"
    exit 0
  fi
  # A node that came back after a restart may be marked down: bring it back.
  scontrol update nodename=localhost state=resume >/dev/null 2>&1 || true
  sleep 0.2
done
sinfo -N -l >&2 || true
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
die "the node did not become idle"
