package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/testbin"
	"github.com/safegp/safegp/shard"
	"go.yaml.in/yaml/v3"
)

// binDir holds the safegp binary, built once by TestMain, as "safegp" so
// that the Kubernetes scripts find it on PATH as in the image.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "safegp-deploy-*")
	if err != nil {
		panic(err)
	}
	binDir = dir
	// One build at a time with cmd/safegp's tests (internal/testbin).
	if out, err := testbin.Build("", filepath.Join(dir, "safegp"), "../cmd/safegp"); err != nil {
		fmt.Fprintf(os.Stderr, "build safegp: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// The parts of Kubernetes objects the manifest relies on (yaml.v3 skips
// the rest).
type object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		AccessModes          []string `yaml:"accessModes"`
		CompletionMode       string   `yaml:"completionMode"`
		Completions          *int     `yaml:"completions"`
		Parallelism          *int     `yaml:"parallelism"`
		BackoffLimitPerIndex *int     `yaml:"backoffLimitPerIndex"`
		PodFailurePolicy     struct {
			Rules []struct {
				Action      string `yaml:"action"`
				OnExitCodes struct {
					ContainerName string `yaml:"containerName"`
					Operator      string `yaml:"operator"`
					Values        []int  `yaml:"values"`
				} `yaml:"onExitCodes"`
			} `yaml:"rules"`
		} `yaml:"podFailurePolicy"`
		Template struct {
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type podSpec struct {
	RestartPolicy  string      `yaml:"restartPolicy"`
	InitContainers []container `yaml:"initContainers"`
	Containers     []container `yaml:"containers"`
	Volumes        []struct {
		Name                  string `yaml:"name"`
		PersistentVolumeClaim *struct {
			ClaimName string `yaml:"claimName"`
		} `yaml:"persistentVolumeClaim"`
		ConfigMap *struct {
			Name string `yaml:"name"`
		} `yaml:"configMap"`
	} `yaml:"volumes"`
}

type container struct {
	Name    string   `yaml:"name"`
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			ConfigMapKeyRef *struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"configMapKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

const manifestPath = "kubernetes/sweep-job.yaml"

// manifest decodes every document of the Kubernetes manifest, and
// returns them with the file's text.
func manifest(t *testing.T) ([]object, string) {
	t.Helper()
	text, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	var objs []object
	dec := yaml.NewDecoder(bytes.NewReader(text))
	for {
		var o object
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: document %d: %v", manifestPath, len(objs)+1, err)
		}
		objs = append(objs, o)
	}
	return objs, string(text)
}

// byKind is the manifest's objects of one kind, by name.
func byKind(objs []object, kind string) map[string]*object {
	m := map[string]*object{}
	for i := range objs {
		if objs[i].Kind == kind {
			m[objs[i].Metadata.Name] = &objs[i]
		}
	}
	return m
}

// env is a container's environment as Kubernetes would set it: literal
// values and keys of the manifest's own ConfigMaps (an error names a
// reference to a ConfigMap or key the manifest lacks).
func env(c *container, maps map[string]*object) (map[string]string, error) {
	m := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			m[e.Name] = e.Value
		case e.ValueFrom.ConfigMapKeyRef != nil:
			ref := e.ValueFrom.ConfigMapKeyRef
			cm, ok := maps[ref.Name]
			if !ok {
				return nil, fmt.Errorf("container %s: env %s names ConfigMap %s, not in the manifest", c.Name, e.Name, ref.Name)
			}
			v, ok := cm.Data[ref.Key]
			if !ok {
				return nil, fmt.Errorf("container %s: env %s names key %s, not in ConfigMap %s", c.Name, e.Name, ref.Key, ref.Name)
			}
			m[e.Name] = v
		default:
			return nil, fmt.Errorf("container %s: env %s: an unexpected valueFrom", c.Name, e.Name)
		}
	}
	return m, nil
}

// TestKubernetesManifest checks the fields the sweep relies on: the
// kinds; the shard Job Indexed with backoffLimitPerIndex, its completions
// equal to SHARDS; every ConfigMap key an env names present; both Jobs
// mounting the claim the manifest makes at /data and the ConfigMap the
// header tells to create at /config, in every container (the merge reads
// the sweep's base_file from /config, the folder shard.json records); the
// merge's podFailurePolicy naming its wait container and the code it
// exits with; the Kubernetes version backoffLimitPerIndex needs stated.
func TestKubernetesManifest(t *testing.T) {
	objs, text := manifest(t)
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.Kind)
	}
	if want := []string{"PersistentVolumeClaim", "ConfigMap", "Job", "Job"}; !slices.Equal(kinds, want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	if !strings.Contains(text, ">= 1.29") {
		t.Error("the manifest does not say that backoffLimitPerIndex needs Kubernetes >= 1.29")
	}
	pvcs, maps, jobs := byKind(objs, "PersistentVolumeClaim"), byKind(objs, "ConfigMap"), byKind(objs, "Job")
	if len(pvcs) != 1 {
		t.Fatalf("%d PersistentVolumeClaims, want 1", len(pvcs))
	}
	var claim string
	for name, p := range pvcs {
		claim = name
		if !slices.Contains(p.Spec.AccessModes, "ReadWriteMany") {
			t.Errorf("claim %s: access modes %v, want ReadWriteMany (pods on any node write)", name, p.Spec.AccessModes)
		}
	}
	m := regexp.MustCompile(`kubectl create configmap (\S+) `).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("the header names no `kubectl create configmap NAME`")
	}
	configMap := m[1]

	shard, merge := jobs["safegp-sweep"], jobs["safegp-sweep-merge"]
	if shard == nil || merge == nil {
		t.Fatalf("Jobs %v, want safegp-sweep and safegp-sweep-merge", jobs)
	}
	s := &shard.Spec
	if s.CompletionMode != "Indexed" || s.Completions == nil || s.BackoffLimitPerIndex == nil {
		t.Fatalf("shard Job: completionMode %q, completions and backoffLimitPerIndex set: %t, %t; want Indexed and both set", s.CompletionMode, s.Completions != nil, s.BackoffLimitPerIndex != nil)
	}
	if s.Parallelism == nil || *s.Parallelism < 1 || *s.Parallelism > *s.Completions {
		t.Errorf("shard Job: parallelism set %t, want 1 … completions (%d)", s.Parallelism != nil, *s.Completions)
	}

	for _, job := range []*object{shard, merge} {
		pod := &job.Spec.Template.Spec
		name := job.Metadata.Name
		if pod.RestartPolicy != "Never" {
			t.Errorf("%s: restartPolicy %q, want Never (the Job retries; podFailurePolicy and backoffLimitPerIndex need it)", name, pod.RestartPolicy)
		}
		vols := map[string]string{}
		for _, v := range pod.Volumes {
			switch {
			case v.PersistentVolumeClaim != nil:
				vols[v.Name] = "claim " + v.PersistentVolumeClaim.ClaimName
			case v.ConfigMap != nil:
				vols[v.Name] = "configmap " + v.ConfigMap.Name
			}
		}
		all := slices.Concat(pod.InitContainers, pod.Containers)
		for i := range all {
			c := &all[i]
			mounts := map[string]string{}
			for _, vm := range c.VolumeMounts {
				mounts[vm.MountPath] = vols[vm.Name]
			}
			if got, want := mounts["/data"], "claim "+claim; got != want {
				t.Errorf("%s, container %s: /data is %q, want %q", name, c.Name, got, want)
			}
			if got, want := mounts["/config"], "configmap "+configMap; got != want {
				t.Errorf("%s, container %s: /config is %q, want %q", name, c.Name, got, want)
			}
			e, err := env(c, maps)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if e["SHARDS"] != strconv.Itoa(*s.Completions) {
				t.Errorf("%s, container %s: SHARDS %q, want the shard Job's completions %d", name, c.Name, e["SHARDS"], *s.Completions)
			}
			if len(c.Command) != 2 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" || len(c.Args) != 1 {
				t.Errorf("%s, container %s: command %q args %d, want /bin/sh -c and one script", name, c.Name, c.Command, len(c.Args))
			}
		}
	}
	sh := shard.Spec.Template.Spec.Containers[0].Args[0]
	for _, want := range []string{"i=$((JOB_COMPLETION_INDEX + 1))", `--shard "$i/$SHARDS"`} {
		if !strings.Contains(sh, want) {
			t.Errorf("shard script lacks %s:\n%s", want, sh)
		}
	}

	rules := merge.Spec.PodFailurePolicy.Rules
	if len(rules) != 1 || rules[0].Action != "FailJob" || len(merge.Spec.Template.Spec.InitContainers) != 1 {
		t.Fatalf("merge Job: podFailurePolicy %+v, init containers %d; want one FailJob rule and one init container", rules, len(merge.Spec.Template.Spec.InitContainers))
	}
	wait := merge.Spec.Template.Spec.InitContainers[0]
	on := rules[0].OnExitCodes
	if on.ContainerName != wait.Name || on.Operator != "In" || len(on.Values) != 1 || !strings.Contains(wait.Args[0], fmt.Sprintf("exit %d\n", on.Values[0])) {
		t.Errorf("merge Job: podFailurePolicy on %+v; want the init container %s's exit code, which its script exits with", on, wait.Name)
	}
}

// cluster is a fake cluster's file system: a data folder (the claim) and
// a config folder (the ConfigMap), and the manifest's scripts with their
// paths moved there.
type cluster struct {
	data, config string
	fix          *strings.Replacer
	maps         map[string]*object
}

func newCluster(t *testing.T, objs []object) *cluster {
	root := t.TempDir()
	c := &cluster{data: filepath.Join(root, "data"), config: filepath.Join(root, "config"), maps: byKind(objs, "ConfigMap")}
	for _, d := range []string{c.data, c.config} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c.fix = strings.NewReplacer("/data", c.data, "/config", c.config)
	return c
}

// run runs container ctr's script as its pod would, with its environment
// and extra (NAME=value) on top; it returns the exit code and stderr.
func (c *cluster) run(t *testing.T, ctr *container, extra ...string) (int, string) {
	t.Helper()
	e, err := env(ctr, c.maps)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(ctr.Command[0], ctr.Command[1], c.fix.Replace(ctr.Args[0]))
	cmd.Env = []string{"PATH=" + binDir + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + c.data}
	for k, v := range e {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, extra...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stderr.String()
	}
	t.Fatalf("%s: %v", ctr.Name, err)
	return 0, ""
}

// writeSweep writes, as the files of a sweep with a base_file, the small
// sweep of sweep/testdata into dir: name and base.yaml, the base's seed
// set to seed.
func writeSweep(t *testing.T, dir, name string, seed int) {
	t.Helper()
	small, err := os.ReadFile(filepath.Join("..", "sweep", "testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(small)
	i, j := strings.Index(text, "base:\n"), strings.Index(text, "axes:\n")
	var base strings.Builder
	for _, line := range strings.SplitAfter(text[i+len("base:\n"):j], "\n") {
		base.WriteString(strings.TrimPrefix(line, "  "))
	}
	b := strings.Replace(base.String(), "seed: 7", fmt.Sprintf("seed: %d", seed), 1)
	if err := os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte("base_file: base.yaml\n"+text[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// unsharded runs the sweep file unsharded into out.
func unsharded(t *testing.T, file, out string) {
	t.Helper()
	if b, err := exec.Command(filepath.Join(binDir, "safegp"), "sweep", file, "--out", out, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("safegp sweep %s: %v\n%s", file, err, b)
	}
}

// sameSweep reports the files of the unsharded sweep whole that merged
// does not hold byte for byte: sweep.csv and every cell's results.json
// and summary.csv (what deploy/slurm/test.sh compares).
func sameSweep(t *testing.T, whole, merged string) {
	t.Helper()
	files := []string{"sweep.csv"}
	cells, err := os.ReadDir(filepath.Join(whole, "cells"))
	if err != nil || len(cells) == 0 {
		t.Fatalf("cells of %s: %v (%d)", whole, err, len(cells))
	}
	for _, c := range cells {
		files = append(files, filepath.Join("cells", c.Name(), "results.json"), filepath.Join("cells", c.Name(), "summary.csv"))
	}
	for _, f := range files {
		a, err1 := os.ReadFile(filepath.Join(whole, f))
		b, err2 := os.ReadFile(filepath.Join(merged, f))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the unsharded sweep and the merge (%v, %v)", f, err1, err2)
		}
	}
}

// sweepJobs reads the manifest into a cluster and returns its shard pod's,
// wait's and merge's containers and the shard Job's completions.
func sweepJobs(t *testing.T) (c *cluster, shardCtr, waitCtr, mergeCtr *container, n int) {
	t.Helper()
	objs, _ := manifest(t)
	jobs := byKind(objs, "Job")
	shardJob, mergeJob := jobs["safegp-sweep"], jobs["safegp-sweep-merge"]
	shardCtr = &shardJob.Spec.Template.Spec.Containers[0]
	waitCtr = &mergeJob.Spec.Template.Spec.InitContainers[0]
	mergeCtr = &mergeJob.Spec.Template.Spec.Containers[0]
	return newCluster(t, objs), shardCtr, waitCtr, mergeCtr, *shardJob.Spec.Completions
}

// TestKubernetesScripts runs the manifest's scripts as the cluster would
// (the shard Job's pods for every completion index, then the merge Job's
// init container and its merge), on a fake volume and ConfigMap with the
// real safegp binary, for two sweeps one after the other on the same
// volume: the merge of each equals its unsharded sweep byte for byte;
// the second sweep's wait does not take the first sweep's shards (it
// gives up, exit 3, naming every shard); a completion index beyond
// SHARDS fails at once.
func TestKubernetesScripts(t *testing.T) {
	c, shardCtr, waitCtr, mergeCtr, n := sweepJobs(t)
	e, err := env(shardCtr, c.maps)
	if err != nil {
		t.Fatal(err)
	}
	sweepFile := e["SWEEP"]

	for round, seed := range []int{7, 8} {
		writeSweep(t, c.config, sweepFile, seed)
		// Before any shard of this sweep ran (in round 1, with the
		// earlier sweep's shards whole on the volume), the wait gives up
		// naming every shard, " 1 2 … n".
		missing := ""
		for i := 1; i <= n; i++ {
			missing += " " + strconv.Itoa(i)
		}
		if code, msg := c.run(t, waitCtr, "WAIT_SECONDS=0"); code != 3 || !strings.Contains(msg, "shards"+missing+" of") {
			t.Errorf("round %d: the wait before any shard ran: exit %d, %q; want 3 naming shards%s", round, code, msg, missing)
		}
		for k := range n {
			if code, msg := c.run(t, shardCtr, "JOB_COMPLETION_INDEX="+strconv.Itoa(k)); code != 0 {
				t.Fatalf("round %d: shard pod %d: exit %d\n%s", round, k, code, msg)
			}
		}
		if code, msg := c.run(t, waitCtr, "WAIT_SECONDS=0"); code != 0 {
			t.Fatalf("round %d: wait after every shard: exit %d\n%s", round, code, msg)
		}
		if code, msg := c.run(t, mergeCtr); code != 0 {
			t.Fatalf("round %d: merge: exit %d\n%s", round, code, msg)
		}
		// Each shard folder holds shard k+1 of n.
		shards, err := filepath.Glob(filepath.Join(c.data, "latest", "shards", "*"))
		if err != nil || len(shards) != n {
			t.Fatalf("round %d: shard folders %v (%v), want %d", round, shards, err, n)
		}
		for _, d := range shards {
			info, err := shard.Read(d)
			if err != nil {
				t.Fatal(err)
			}
			if strconv.Itoa(info.Shard) != filepath.Base(d) || info.Of != n {
				t.Errorf("%s holds shard %d of %d, want %s of %d", d, info.Shard, info.Of, filepath.Base(d), n)
			}
		}
		whole := filepath.Join(t.TempDir(), "whole")
		unsharded(t, filepath.Join(c.config, sweepFile), whole)
		sameSweep(t, whole, filepath.Join(c.data, "latest", "merged"))
	}
	if runs, _ := os.ReadDir(filepath.Join(c.data, "runs")); len(runs) != 2 {
		t.Errorf("%d run folders after two sweeps, want 2", len(runs))
	}

	if code, msg := c.run(t, shardCtr, "JOB_COMPLETION_INDEX="+strconv.Itoa(n)); code == 0 || !strings.Contains(msg, "completions") {
		t.Errorf("shard pod of index %d = SHARDS: exit %d, %q; want a failure naming completions", n, code, msg)
	}
}

// fakeSbatch writes an sbatch that records each call's arguments, one a
// line, in log.1, log.2, … and answers as --parsable does, "ID;cluster".
func fakeSbatch(t *testing.T, dir, log string) {
	t.Helper()
	script := `#!/bin/sh
k=1
while [ -e "` + log + `.$k" ]; do k=$((k + 1)); done
printf '%s\n' "$@" > "` + log + `.$k"
echo "$((100 + k));test"
`
	if err := os.WriteFile(filepath.Join(dir, "sbatch"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// slurmJob is one sbatch call: its options, script and the script's
// arguments.
type slurmJob struct {
	opts   []string
	script string
	args   []string
}

func (j *slurmJob) opt(prefix string) string {
	for _, o := range j.opts {
		if v, ok := strings.CutPrefix(o, prefix); ok {
			return v
		}
	}
	return ""
}

func readSbatch(t *testing.T, log string) *slurmJob {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, ".sbatch") {
			return &slurmJob{opts: lines[:i], script: l, args: lines[i+1:]}
		}
	}
	t.Fatalf("%s: no .sbatch script in %q", log, lines)
	return nil
}

// slurmEnv is a task's environment: PATH, SAFEGP and extra.
func slurmEnv(extra ...string) []string {
	return append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "SAFEGP=" + filepath.Join(binDir, "safegp")}, extra...)
}

func runBash(t *testing.T, dir string, env []string, script string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	}
	t.Fatalf("%s: %v", script, err)
	return 0, ""
}

// TestSlurmScripts runs submit.sh with an sbatch that only records its
// calls, then plays them as Slurm would: the array's tasks 1 … N
// (sweep.sbatch, in the --chdir folder), one task rerun alone as
// `sbatch --array=3` does (SLURM_ARRAY_TASK_MIN = MAX = 3), and the merge
// job; the merge equals the unsharded sweep byte for byte. sweep.sbatch
// without N fails with a message naming it, and takes SHARDS instead.
func TestSlurmScripts(t *testing.T) {
	root := t.TempDir()
	sweepDir, binSbatch := filepath.Join(root, "sweep"), filepath.Join(root, "bin")
	for _, d := range []string{sweepDir, binSbatch} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeSweep(t, sweepDir, "s.yaml", 7)
	log := filepath.Join(root, "sbatch.log")
	fakeSbatch(t, binSbatch, log)
	submit, err := filepath.Abs(filepath.Join("slurm", "submit.sh"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	env := slurmEnv()
	env[0] = "PATH=" + binSbatch + ":/usr/local/bin:/usr/bin:/bin"
	// Relative paths, from the sweep's folder, as a user types them.
	if code, out := runBash(t, sweepDir, env, submit, "sweep", "s.yaml", "../out", strconv.Itoa(n), "--partition=p"); code != 0 {
		t.Fatalf("submit.sh: exit %d\n%s", code, out)
	}
	array, merge := readSbatch(t, log+".1"), readSbatch(t, log+".2")
	out := filepath.Join(root, "out")
	if got := array.opt("--array="); got != "1-3" {
		t.Errorf("array: --array=%q, want 1-3", got)
	}
	if want := []string{"sweep", filepath.Join(sweepDir, "s.yaml"), out, "3"}; !slices.Equal(array.args, want) {
		t.Errorf("array: sweep.sbatch %q, want %q (absolute paths and N)", array.args, want)
	}
	if got := merge.opt("--dependency="); got != "afterok:101" {
		t.Errorf("merge: --dependency=%q, want afterok:101 (the array's id)", got)
	}
	if want := []string{out, "3"}; !slices.Equal(merge.args, want) {
		t.Errorf("merge: merge.sbatch %q, want %q", merge.args, want)
	}
	for _, j := range []*slurmJob{array, merge} {
		if j.opt("--chdir=") != out || j.opt("--partition=") != "p" {
			t.Errorf("%s: options %q, want --chdir=%s and the extra --partition=p", j.script, j.opts, out)
		}
	}

	// The array's tasks, then task 3 rerun on its own.
	task := func(i, lo, hi int, extra ...string) (int, string) {
		return runBash(t, out, slurmEnv(append([]string{
			"SLURM_ARRAY_TASK_ID=" + strconv.Itoa(i), "SLURM_ARRAY_TASK_MIN=" + strconv.Itoa(lo),
			"SLURM_ARRAY_TASK_MAX=" + strconv.Itoa(hi), "SLURM_CPUS_PER_TASK=1"}, extra...)...),
			array.script, array.args...)
	}
	for i := 1; i <= n; i++ {
		if code, msg := task(i, 1, n); code != 0 {
			t.Fatalf("task %d: exit %d\n%s", i, code, msg)
		}
	}
	if code, msg := task(3, 3, 3); code != 0 {
		t.Fatalf("task 3 rerun alone: exit %d\n%s", code, msg)
	}
	if info, err := shard.Read(filepath.Join(out, "shards", "3")); err != nil || info.Shard != 3 || info.Of != n {
		t.Errorf("after rerunning task 3 alone, shards/3 holds %+v (%v), want shard 3 of %d", info, err, n)
	}
	if code, msg := runBash(t, out, slurmEnv(), merge.script, merge.args...); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, msg)
	}
	whole := filepath.Join(root, "whole")
	unsharded(t, filepath.Join(sweepDir, "s.yaml"), whole)
	sameSweep(t, whole, filepath.Join(out, "merged"))

	// N missing: a clear refusal; SHARDS in its place; a task beyond N.
	noN := array.args[:3]
	if code, msg := runBash(t, out, slurmEnv("SLURM_ARRAY_TASK_ID=2"), array.script, noN...); code != 2 || !strings.Contains(msg, "number of shards N") {
		t.Errorf("sweep.sbatch without N: exit %d, %q; want 2 naming the number of shards", code, msg)
	}
	if code, msg := runBash(t, out, slurmEnv("SLURM_ARRAY_TASK_ID=2", "SLURM_CPUS_PER_TASK=1", "SHARDS=3"), array.script, noN...); code != 0 {
		t.Errorf("sweep.sbatch with SHARDS=3: exit %d\n%s", code, msg)
	}
	if code, msg := runBash(t, out, slurmEnv("SLURM_ARRAY_TASK_ID=4"), array.script, array.args...); code != 2 || !strings.Contains(msg, "not a shard of 1") {
		t.Errorf("sweep.sbatch task 4 of N = 3: exit %d, %q; want 2", code, msg)
	}
}

// TestSlurmLoSBO: submit.sh losbo RUNS:K OUT N submits the LoSBO suite as
// an array (RUNS:K, here 1 run of the first 3 functions, passed on as it
// is, not as a path), its tasks write the
// shards, and merge.sbatch merges them into the table a whole run writes;
// a RUNS that is not a positive integer is refused.
func TestSlurmLoSBO(t *testing.T) {
	root := t.TempDir()
	binSbatch := filepath.Join(root, "bin")
	if err := os.Mkdir(binSbatch, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(root, "sbatch.log")
	fakeSbatch(t, binSbatch, log)
	submit, err := filepath.Abs(filepath.Join("slurm", "submit.sh"))
	if err != nil {
		t.Fatal(err)
	}
	env := slurmEnv()
	env[0] = "PATH=" + binSbatch + ":/usr/local/bin:/usr/bin:/bin"
	if code, out := runBash(t, root, env, submit, "losbo", "x1", "out", "2"); code != 2 || !strings.Contains(out, "RUNS must be a positive integer") {
		t.Errorf("submit.sh losbo x1: exit %d, %q; want 2", code, out)
	}
	if code, out := runBash(t, root, env, submit, "losbo", "1:3", "out", "2"); code != 0 {
		t.Fatalf("submit.sh: exit %d\n%s", code, out)
	}
	array, merge := readSbatch(t, log+".1"), readSbatch(t, log+".2")
	out := filepath.Join(root, "out")
	if want := []string{"losbo", "1:3", out, "2"}; !slices.Equal(array.args, want) {
		t.Errorf("array: sweep.sbatch %q, want %q", array.args, want)
	}
	for i := 1; i <= 2; i++ {
		if code, msg := runBash(t, out, slurmEnv("SLURM_ARRAY_TASK_ID="+strconv.Itoa(i), "SLURM_CPUS_PER_TASK=2"), array.script, array.args...); code != 0 {
			t.Fatalf("task %d: exit %d\n%s", i, code, msg)
		}
	}
	if code, msg := runBash(t, out, slurmEnv(), merge.script, merge.args...); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, msg)
	}
	whole := filepath.Join(root, "whole")
	if b, err := exec.Command(filepath.Join(binDir, "safegp"), "safety", "--suite", "losbo", "--runs", "1", "--functions", "3", "--out", whole).CombinedOutput(); err != nil {
		t.Fatalf("whole run: %v\n%s", err, b)
	}
	a, _ := os.ReadFile(filepath.Join(whole, "losbo.csv"))
	b, err := os.ReadFile(filepath.Join(out, "merged", "losbo.csv"))
	if err != nil || !bytes.Equal(a, b) {
		t.Errorf("merged losbo.csv differs from a whole run's (%v)", err)
	}
}

// TestKubernetesLoSBO runs the manifest's shard pods, wait and merge with
// SWEEP=losbo:1:3 (1 run of the first 3 functions): the LoSBO suite in the
// Jobs' shards, merged into the
// losbo.csv a whole run writes.
func TestKubernetesLoSBO(t *testing.T) {
	c, shardCtr, waitCtr, mergeCtr, n := sweepJobs(t)
	// The ConfigMap is mounted whatever SWEEP says: a file is there.
	if err := os.WriteFile(filepath.Join(c.config, "README"), []byte("losbo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const suite = "SWEEP=losbo:1:3"
	for k := range n {
		if code, msg := c.run(t, shardCtr, "JOB_COMPLETION_INDEX="+strconv.Itoa(k), suite); code != 0 {
			t.Fatalf("shard pod %d: exit %d\n%s", k, code, msg)
		}
	}
	if code, msg := c.run(t, waitCtr, "WAIT_SECONDS=0", suite); code != 0 {
		t.Fatalf("wait: exit %d\n%s", code, msg)
	}
	if code, msg := c.run(t, mergeCtr, suite); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, msg)
	}
	whole := filepath.Join(t.TempDir(), "whole")
	if b, err := exec.Command(filepath.Join(binDir, "safegp"), "safety", "--suite", "losbo", "--runs", "1", "--functions", "3", "--out", whole).CombinedOutput(); err != nil {
		t.Fatalf("whole run: %v\n%s", err, b)
	}
	a, _ := os.ReadFile(filepath.Join(whole, "losbo.csv"))
	b, err := os.ReadFile(filepath.Join(c.data, "latest", "merged", "losbo.csv"))
	if err != nil || !bytes.Equal(a, b) {
		t.Errorf("merged losbo.csv differs from a whole run's (%v)", err)
	}
}
