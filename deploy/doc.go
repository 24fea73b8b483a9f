// Package deploy holds no Go code: it is the home of the files that run
// safegp's sharded sweeps on a cluster — deploy/slurm (a Slurm job array
// per sweep and a dependent merge job, submit.sh), deploy/kubernetes (an
// Indexed Job onto a shared volume and a merge Job) and the Dockerfile —
// and of the tests that check them without a cluster: the Kubernetes
// manifest is decoded document by document and its fields cross-checked
// (kinds, the Indexed completion mode, the volumes and ConfigMaps both
// Jobs mount, the shard count), and the shell scripts of both are run as
// the cluster would run them, with the real safegp binary, on a small
// sweep whose merge must equal the unsharded sweep byte for byte.
package deploy
