// Package experiment reads an experiment configuration, runs every
// algorithm on every realization of a problem in parallel and
// deterministically, and writes the results (SPEC §6, §9).
package experiment
