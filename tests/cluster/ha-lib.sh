# SPDX-License-Identifier: Apache-2.0
# Helpers of the tests with several controllers (charm-ha, charm-fence), sourced after
# charm-lib.sh: commands on a unit's machine as an admin, who is in charge, jobs not lost.
# shellcheck shell=bash
JSM=${JSM:-$TOP_BUILDDIR/tools/juju-sim/juju-sim-machine}

# mx UNIT CMD…: CMD on the unit's machine outside any hook (an admin there)
mx() {
        local m
        m=$(machine_of "$1")
        shift
        "$JSM" exec "$MODEL" "$m" --timeout 30 -- "$@"
}
# on UNIT CMD…: a Slurm client command on that controller's machine (no hook lock)
on() { mx "$@"; }
ctl_hosts() { grep '^SlurmctldHost=' "$(root_of "$1")/etc/slurm/slurm.conf" | sed 's/^SlurmctldHost=\([^(]*\).*/\1/' | tr '\n' ' '; }
host_of() { js exec "$1" -- hostname; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# answers UNIT: that unit's slurmctld is the one in charge: squeue through a client list naming
# only it (a standby answers "Slurm backup controller in standby mode")
answers() {
        mx "$1" sh -c 'grep -v "^SlurmctldHost=" /etc/slurm/slurm.conf >/tmp/one.conf &&
                echo "SlurmctldHost=$(hostname)" >>/tmp/one.conf &&
                SLURM_CONF=/tmp/one.conf timeout 5 squeue -h >/dev/null 2>&1'
}
# no_job_lost UNIT JOB…: every job is known to the controller UNIT reaches, none FAILED/NODE_FAIL
no_job_lost() {
        local u=$1 j st
        shift
        for j in "$@"; do
                st=$(on "$u" scontrol -o show job "$j" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p')
                case "$st" in
                RUNNING | PENDING | COMPLETED | COMPLETING | CONFIGURING) ;;
                *) die "job $j: \"$st\" (lost or failed)" ;;
                esac
        done
}
sub() { on "$1" sbatch --parsable -o /dev/null "${@:2}" | cut -d';' -f1; }
# quiet: slurmctld saves job state at most every 5 s; a kill -9 inside that window loses what
# changed (Slurm's behaviour, HACKING.md "High availability")
quiet() { sleep 6; }
wait_done() { # UNIT JOB SECONDS
        local i st
        for ((i = 0; i < $3 * 2; i++)); do
                st=$(on "$1" scontrol -o show job "$2" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p')
                [ "$st" = COMPLETED ] && return 0
                sleep 0.5
        done
        die "job $2: $st after $3 s, want COMPLETED"
}
# fail_over DOWN UP: waits until UP's slurmctld answers as the one in charge; prints the figure
fail_over() {
        local t0=$1 up=$2 t
        for ((t = 0; t < (T_OUT + 20) * 4; t++)); do
                if answers "$up"; then
                        log "figure: primary lost -> $up answers: $(($(now_ms) - t0)) ms (SlurmctldTimeout ${T_OUT} s)"
                        return 0
                fi
                sleep 0.25
        done
        die "$up did not take over within $((T_OUT + 20)) s"
}
