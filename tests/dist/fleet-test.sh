#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The fleet files of dist/: the Prometheus rules pass `promtool check rules` and their unit tests
# (`promtool test rules`, tests/dist/drmtop-rules.test.yml), which cover every rule, each alert
# both firing and not firing; every drmtop metric they name is one drmtop serves; the scrape
# configuration passes `promtool check config`; the DaemonSet runs privileged in the host's pid
# namespace with the host's /proc given by --proc-root, the cgroup, BTF and tracing mounts, and
# its arguments are ones drmtop accepts (drmtop serve started with them answers a scrape).
# Needs no root. Writes "<passed> <failed>" to $RESULTS/fleet.
set -u
DRMTOP=${DRMTOP:-build/drmtop}
RULES=dist/prometheus/drmtop-rules.yml
TESTS=tests/dist/drmtop-rules.test.yml
CONFIG=dist/prometheus/prometheus.yml
MANIFEST=dist/kubernetes/drmtop-daemonset.yaml
STAGE=fleet
. "$(dirname "$0")/../stage-lib.sh"
for t in promtool python3 curl; do
	command -v $t >/dev/null || { bad setup "$t missing (scripts/install-deps.sh installs it)"; finish; }
done
python3 -c 'import yaml' 2>/dev/null ||
	{ bad setup "python3-yaml missing (scripts/install-deps.sh installs it)"; finish; }
[ -x "$DRMTOP" ] || { bad setup "$DRMTOP not built"; finish; }
T=$(mktemp -d)
spid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

promtool check rules "$RULES" >"$T/out" 2>&1 && ok "promtool check rules: $(grep -o '[0-9]* rules' "$T/out")" ||
	bad "promtool check rules" "$(head -c 800 "$T/out")"
promtool test rules "$TESTS" >"$T/out" 2>&1 && ok "promtool test rules" ||
	bad "promtool test rules" "$(head -c 2000 "$T/out")"

# Every rule tested, each alert both firing and not; every metric named is drmtop's.
python3 - "$RULES" "$TESTS" >"$T/cover" 2>&1 <<'PY'
import re, sys, yaml
rules = [r for g in yaml.safe_load(open(sys.argv[1]))["groups"] for r in g["rules"]]
tests = yaml.safe_load(open(sys.argv[2]))["tests"]
exprs = [e["expr"] for t in tests for e in t.get("promql_expr_test", [])]
alerts = [a for t in tests for a in t.get("alert_rule_test", [])]
bad = []
for r in rules:
    if "record" in r:
        if not any(re.search(r"(^|[^:\w])" + re.escape(r["record"]) + r"($|[^:\w])", e)
                   for e in exprs):
            bad.append("recording rule %s has no promql_expr_test" % r["record"])
        continue
    cases = [a for a in alerts if a["alertname"] == r["alert"]]
    if not any(a.get("exp_alerts") for a in cases):
        bad.append("alert %s never tested firing" % r["alert"])
    if not any(not a.get("exp_alerts") for a in cases):
        bad.append("alert %s never tested not firing" % r["alert"])
print("\n".join(bad) or "%d rules covered" % len(rules))
names = set()
for r in rules:
    names.update(re.findall(r"\bdrmtop_[a-z_]+", r["expr"]))
for n in sorted(names):
    print("metric", n)
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] && ok "unit tests cover every rule, each alert firing and not ($(head -n 1 "$T/cover"))" ||
	bad "rule coverage" "$(grep -v '^metric ' "$T/cover" | tr '\n' ';')"
# The names drmtop serves: its view's family names (counters without _total there).
missing=
for n in $(sed -n 's/^metric //p' "$T/cover"); do
	grep -q "\"${n%_total}\"" src/views/prometheus.c || missing="$missing $n"
done
[ -z "$missing" ] && ok "every drmtop metric the rules name is served ($(grep -c '^metric ' "$T/cover"))" ||
	bad "metric names" "not served:$missing"

# The scrape configuration, with its rule file. Debian's promtool is built without Kubernetes
# discovery: there the pod job's discovery is checked by hand (role) and the rest of the job
# (relabelling) by promtool, with a static target in place of the discovery.
cp "$CONFIG" "$RULES" "$T/"
if promtool check config "$T/prometheus.yml" >"$T/out" 2>&1; then
	ok "promtool check config (with the rule file)"
elif grep -q 'field kubernetes_sd_configs not found' "$T/out"; then
	python3 - "$T/prometheus.yml" >"$T/sd" 2>&1 <<'PY'
import sys, yaml
path = sys.argv[1]
c = yaml.safe_load(open(path))
for j in c["scrape_configs"]:
    sd = j.pop("kubernetes_sd_configs", None)
    if sd is None:
        continue
    roles = [s.get("role") for s in sd]
    if roles != ["pod"]:
        sys.exit("kubernetes_sd_configs roles %s, want [pod]" % roles)
    j["static_configs"] = [{"targets": ["pod:9469"]}]
    print("job", j["job_name"])
yaml.safe_dump(c, open(path, "w"))
PY
	if [ $? -eq 0 ] && promtool check config "$T/prometheus.yml" >"$T/out" 2>&1; then
		ok "promtool check config (with the rule file; kubernetes_sd role pod checked apart: $(sed -n 's/^job //p' "$T/sd"))"
	else
		bad "promtool check config" "$(cat "$T/sd") $(head -c 800 "$T/out")"
	fi
else
	bad "promtool check config" "$(head -c 800 "$T/out")"
fi

# The DaemonSet: what the agent needs of the host.
python3 - "$MANIFEST" >"$T/ds" 2>&1 <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
ds = [d for d in docs if d.get("kind") == "DaemonSet"]
bad = []
if len(ds) != 1:
    sys.exit("want one DaemonSet, found %d" % len(ds))
spec = ds[0]["spec"]["template"]["spec"]
sel = ds[0]["spec"]["selector"]["matchLabels"]
labels = ds[0]["spec"]["template"]["metadata"]["labels"]
if any(labels.get(k) != v for k, v in sel.items()):
    bad.append("selector %s does not match the pod's labels %s" % (sel, labels))
if labels.get("app.kubernetes.io/name") != "drmtop":
    bad.append("pod label app.kubernetes.io/name=drmtop (the scrape job keeps it) missing")
if spec.get("hostPID") is not True:
    bad.append("hostPID is not true")
(c,) = spec["containers"]
if not c.get("securityContext", {}).get("privileged"):
    bad.append("container not privileged")
if not any(p.get("name") == "metrics" and p.get("containerPort") == 9469 for p in c["ports"]):
    bad.append("no port named metrics on 9469 (the scrape job keeps that port)")
args = c["args"]
vols = {v["name"]: v.get("hostPath", {}).get("path") for v in spec["volumes"]}
mounts = {}
for m in c["volumeMounts"]:
    if m["name"] not in vols:
        bad.append("mount %s has no volume" % m["name"])
    mounts[m["mountPath"]] = vols.get(m["name"])
if args[0] != "serve" or "--listen" not in args or "--proc-root" not in args:
    bad.append("args %s: want serve --listen ... --proc-root ..." % args)
else:
    root = args[args.index("--proc-root") + 1]
    if mounts.get(root) != "/proc":
        bad.append("--proc-root %s is not the host's /proc mounted" % root)
for path in ("/sys/fs/cgroup", "/sys/kernel/btf", "/sys/kernel/tracing", "/sys/kernel/debug"):
    if mounts.get(path) != path:
        bad.append("host %s not mounted at %s" % (path, path))
print("\n".join(bad))
print("ARGS " + " ".join(args))
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] && ok "DaemonSet: privileged, hostPID, host /proc as --proc-root, cgroup2, BTF, tracefs, debugfs" ||
	bad "DaemonSet" "$(grep -v '^ARGS ' "$T/ds" | tr '\n' ';')"
# Its arguments as drmtop takes them: the host's /proc here, loopback and any port, fdinfo only.
read -r -a args <<<"$(sed -n 's/^ARGS //p' "$T/ds")"
for i in "${!args[@]}"; do
	case ${args[$i]} in
	--listen) args[i + 1]=127.0.0.1:0 ;;
	--proc-root) args[i + 1]=/proc ;;
	esac
done
if [ "${#args[@]}" -gt 0 ]; then
	"$DRMTOP" "${args[@]}" --source fdinfo 2>"$T/serve.err" &
	spid=$!
	port=
	for _ in $(seq 50); do
		port=$(sed -n 's|.*:\([0-9]*\)/metrics.*|\1|p' "$T/serve.err")
		[ -n "$port" ] && break
		sleep 0.1
	done
	if [ -n "$port" ] && curl -sf --max-time 10 "http://127.0.0.1:$port/metrics" >"$T/m" &&
		grep -q '^drmtop_build_info' "$T/m"; then
		ok "drmtop ${args[*]} (the manifest's arguments) serves metrics"
	else
		bad "manifest's arguments" "drmtop ${args[*]}: $(head -c 400 "$T/serve.err")"
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
fi
finish
